import { Schema } from "effect"

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
