import { Schema } from "effect"
import { HttpServerResponse } from "effect/http"

/** Text that is valid unicode: a lone surrogate cannot be stored or shown. */
export const WellFormedText = Schema.String.check(
  Schema.makeFilter((s: string) => s.isWellFormed() || "INVALID_FORMAT: Text is not valid unicode")
)

/** Well-formed text of a bounded length, counted in code points. */
export const BoundedText = (min: number, max: number, code = "STRING_LENGTH_INVALID") =>
  WellFormedText.check(
    Schema.makeFilter((s: string) => {
      const n = [...s].length
      return (n >= min && n <= max) || `${code}: Must be between ${min} and ${max} in length`
    })
  )

export const SuccessResponse = Schema.Struct({ success: Schema.Literal(true) })

/**
 * A body that is JSON already (an actor's rendered view): written as it is,
 * where a handler's return value would be encoded through its schema again.
 */
export const jsonResponse = (json: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(json, { contentType: "application/json" })
