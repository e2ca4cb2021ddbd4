import type { SqlError } from "effect/sql"
import { BadRequest } from "../../src/model/Errors.ts"

/**
 * Postgres refusals that no retry can change: the write itself is at fault,
 * not the database. SQLSTATE class 23 (integrity constraint violation: a taken
 * vanity code, a missing referenced row) and class 22 (data exception: a NUL
 * in text, a value out of range). Anything else (the connection lost, a
 * serialization failure, a deadlock) may pass on a second try and keeps its
 * handling as a failure whose outcome is unknown.
 */
export type Refusal = "constraint" | "data"

/** The SQLSTATE the server reported, kept by sql-pg on the reason's cause. */
const sqlState = (error: SqlError.SqlError): string | undefined => {
  const cause: unknown = error.reason.cause
  if (typeof cause !== "object" || cause === null || !("code" in cause)) return undefined
  return typeof cause.code === "string" ? cause.code : undefined
}

/** What kind of permanent refusal `error` is, or undefined when a retry may succeed. */
export const permanentRefusal = (error: SqlError.SqlError): Refusal | undefined => {
  const reason = error.reason._tag
  if (reason === "UniqueViolation" || reason === "ConstraintError") return "constraint"
  const state = sqlState(error)
  if (state?.startsWith("23")) return "constraint"
  if (state?.startsWith("22")) return "data"
  return undefined
}

/** The 400 a caller hears for a write Postgres refused for good. */
export const refusalError = (refusal: Refusal): BadRequest =>
  refusal === "constraint"
    ? new BadRequest({ code: "CONFLICT", message: "The change conflicts with what is stored" })
    : new BadRequest({
      code: "INVALID_FORM_BODY",
      message: "Invalid form body",
      errors: [{ path: "root", code: "INVALID_FORM_BODY", message: "The request holds a value that cannot be stored" }]
    })
