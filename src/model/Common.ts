import { Schema } from "effect"

/**
 * Text this server can keep: Postgres `text` and `jsonb` refuse U+0000, and a
 * lone surrogate has no UTF-8 form (the driver would silently replace it).
 * Every request is held to it at the edge (src/http/StorableInput.ts).
 */
export const isStorableText = (text: string): boolean => !text.includes("\u0000") && text.isWellFormed()

export const UNSTORABLE_TEXT = "Text may not contain U+0000 or unpaired surrogates"

/** Text that can be stored and shown. */
export const WellFormedText = Schema.String.check(
  Schema.makeFilter((s: string) => isStorableText(s) || `INVALID_FORMAT: ${UNSTORABLE_TEXT}`)
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
