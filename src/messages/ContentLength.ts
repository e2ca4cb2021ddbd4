import { Effect } from "effect"
import { type BadRequest, invalidField } from "../model/Errors.ts"
import type { LimitReader } from "../model/Limits.ts"

/**
 * A message's content within the instance's `max_message_length`
 * (src/platform/Limits.ts), counted in code points as the request schema
 * counts up to its ceiling, and refused with the schema's error.
 */
export const checkContentLength = (limits: LimitReader, content: string | null | undefined): Effect.Effect<void, BadRequest> => {
  if (content == null) return Effect.void
  const max = limits("max_message_length")
  // Counting code points is only needed near the limit: UTF-16 length is never less.
  return content.length > max && [...content].length > max
    ? Effect.fail(invalidField("content", "CONTENT_EXCEEDS_MAX_LENGTH", `Must be between 0 and ${max} in length`))
    : Effect.void
}
