import { Schema } from "effect"
import { Snowflake } from "./Ids.ts"

/**
 * The `{emoji}` of a reaction route: a unicode emoji, or a custom emoji as
 * `name:id` (also `a:name:id` and the `<:name:id>` of message text, which
 * clients paste as they are).
 */
export interface ParsedEmoji {
  /** The custom emoji's id; null for a unicode emoji. */
  readonly id: string | null
  readonly name: string
}

const CUSTOM = /^<?a?:?([A-Za-z0-9_]{1,32}):(\d{1,19})>?$/
const KEYCAP = /^[0-9#*]\uFE0F?\u20E3$/u
const FLAG = /^\p{Regional_Indicator}{2}$/u
const PICTOGRAPH = /\p{Extended_Pictographic}/u
/** Emoji sequences are short; this bounds what the segmenter looks at. */
const MAX_UNICODE_LENGTH = 64

const isSnowflake = Schema.is(Snowflake)
const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" })

/** Whether `text` is one emoji: a single grapheme that is a pictograph (with its modifiers and joins), a keycap or a flag. */
export const isUnicodeEmoji = (text: string): boolean => {
  if (text.length === 0 || text.length > MAX_UNICODE_LENGTH || !text.isWellFormed()) return false
  let count = 0
  for (const _ of graphemes.segment(text)) if (++count > 1) return false
  return KEYCAP.test(text) || FLAG.test(text) || PICTOGRAPH.test(text)
}

const customOf = (text: string): ParsedEmoji | undefined => {
  const match = CUSTOM.exec(text)
  const [, name, id] = match ?? []
  return name === undefined || id === undefined || !isSnowflake(id) ? undefined : { id, name }
}

/** The emoji `text` names; undefined when it names none (ReactionEmojiText refuses those). */
export const parseEmoji = (text: string): ParsedEmoji | undefined =>
  customOf(text) ?? (isUnicodeEmoji(text) ? { id: null, name: text } : undefined)

/** The path parameter, checked: NOT_A_VALID_UNICODE_EMOJI for anything that names no emoji. */
export const ReactionEmojiText = Schema.String.check(Schema.makeFilter((text: string) =>
  parseEmoji(text) !== undefined || "NOT_A_VALID_UNICODE_EMOJI: Not an emoji, nor a custom emoji as name:id"))

/** What the guild actor is told of an emoji. */
export const EmojiRef = Schema.Struct({ id: Schema.NullOr(Schema.String), name: Schema.String })
