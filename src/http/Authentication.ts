import { Context } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import type { Session } from "../auth/Sessions.ts"
import { Forbidden, Unauthorized } from "../model/Errors.ts"
import type { UserId } from "../model/Ids.ts"

/*
 * The `Authorization` header carries every kind of credential (conventions.md):
 * a bare session token, `Bot …`, `Bearer …` or `Admin …`. The middlewares read
 * it themselves, so the prefix is ours to interpret.
 */

/** Who is calling a user route. */
export class CurrentUser extends Context.Service<CurrentUser, {
  readonly id: UserId
  readonly session: Session
  /** Set when the caller is a bot (`Bot <token>`): its application, whose id is also the bot's. */
  readonly applicationId?: string
}>()("guildhall/CurrentUser") {}

export class UserAuthentication extends HttpApiMiddleware.Service<UserAuthentication, {
  provides: CurrentUser
}>()("guildhall/UserAuthentication", {
  error: [Unauthorized]
}) {}

/** Who is calling an `/admin` route: an API key, or a user holding admin ACLs. */
export class CurrentOperator extends Context.Service<CurrentOperator, {
  /** The key's id for API keys, the user's id for users: what audit logs record. */
  readonly id: string
  readonly acls: ReadonlySet<string>
}>()("guildhall/CurrentOperator") {}

export class AdminAuthentication extends HttpApiMiddleware.Service<AdminAuthentication, {
  provides: CurrentOperator
}>()("guildhall/AdminAuthentication", {
  error: [Unauthorized, Forbidden]
}) {}

/** Splits `Bot x`, `Bearer x`, `Admin x` and a bare token. */
export const parseAuthorization = (
  value: string
): { readonly scheme: "session" | "bot" | "bearer" | "admin"; readonly secret: string } | undefined => {
  const space = value.indexOf(" ")
  if (space < 0) return value.length > 0 ? { scheme: "session", secret: value } : undefined
  const prefix = value.slice(0, space)
  const secret = value.slice(space + 1).trim()
  if (secret.length === 0) return undefined
  switch (prefix) {
    case "Bot":
      return { scheme: "bot", secret }
    case "Bearer":
      return { scheme: "bearer", secret }
    case "Admin":
      return { scheme: "admin", secret }
    default:
      return undefined
  }
}

