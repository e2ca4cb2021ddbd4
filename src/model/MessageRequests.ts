import { Schema } from "effect"
import { BoundedText } from "./Common.ts"
import { MessageId, Snowflake } from "./Ids.ts"
import { CEILINGS, DEFAULT_LIMITS } from "./Limits.ts"

/**
 * What clients send to create, edit and delete messages (reference/schemas.md),
 * with part A's limits. A check's message starts with its validation code.
 */
export const MAX_CONTENT = DEFAULT_LIMITS.max_message_length
export const MAX_EMBEDS = 10
/** Every text of a message's embeds together (titles, descriptions, field names and values, footers, authors). */
export const MAX_EMBED_CHARACTERS = 6000
export const MAX_BULK_DELETE = 100

const Int32 = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2147483647 }))

/** An absolute http(s) URL. */
export const isWebUrl = (s: string) => {
  try {
    const url = new URL(s)
    return url.protocol === "https:" || url.protocol === "http:"
  } catch {
    return false
  }
}
const LinkUrl = Schema.String.check(Schema.makeFilter((s: string) => isWebUrl(s) || "INVALID_URL_FORMAT: Not an http(s) URL"))
const MediaUrl = Schema.String.check(
  Schema.makeFilter((s: string) => isWebUrl(s) || "INVALID_URL_OR_ATTACHMENT_FORMAT: Not an http(s) URL")
)
const Colour = Schema.Int.check(
  Schema.makeFilter((n: number) => n >= 0 || "COLOR_VALUE_TOO_LOW: Colour must be at least 0"),
  Schema.makeFilter((n: number) => n <= 0xffffff || "COLOR_VALUE_TOO_HIGH: Colour must be at most 16777215")
)
export const IsoTimestamp = Schema.String.check(Schema.makeFilter((s: string) =>
  (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?$/.test(s) && !Number.isNaN(Date.parse(s))) ||
  "INVALID_ISO_TIMESTAMP: Not an ISO 8601 timestamp"
))
const EpochMillis = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 8640000000000000 }))
const EmbedMedia = Schema.Struct({ url: MediaUrl, description: Schema.optional(Schema.NullOr(BoundedText(0, 1024))) })

export const RichEmbedRequest = Schema.Struct({
  url: Schema.optional(Schema.NullOr(LinkUrl)),
  title: Schema.optional(Schema.NullOr(BoundedText(0, 256))),
  color: Schema.optional(Schema.NullOr(Colour)),
  timestamp: Schema.optional(Schema.NullOr(Schema.Union([IsoTimestamp, EpochMillis]))),
  description: Schema.optional(Schema.NullOr(BoundedText(0, 4096))),
  author: Schema.optional(Schema.NullOr(Schema.Struct({
    name: BoundedText(1, 256),
    url: Schema.optional(Schema.NullOr(LinkUrl)),
    icon_url: Schema.optional(Schema.NullOr(MediaUrl))
  }))),
  image: Schema.optional(Schema.NullOr(EmbedMedia)),
  thumbnail: Schema.optional(Schema.NullOr(EmbedMedia)),
  footer: Schema.optional(Schema.NullOr(Schema.Struct({
    text: BoundedText(1, 2048),
    icon_url: Schema.optional(Schema.NullOr(MediaUrl))
  }))),
  fields: Schema.optional(Schema.NullOr(Schema.Array(Schema.Struct({
    name: BoundedText(1, 256),
    value: BoundedText(1, 1024),
    inline: Schema.optional(Schema.Boolean)
  })).check(Schema.isMaxLength(25))))
})
export type RichEmbedRequest = typeof RichEmbedRequest.Type

/** The characters of an embed that count toward MAX_EMBED_CHARACTERS. */
export const embedCharacters = (e: RichEmbedRequest): number =>
  (e.title?.length ?? 0) + (e.description?.length ?? 0) + (e.footer?.text.length ?? 0) + (e.author?.name.length ?? 0) +
  (e.fields ?? []).reduce((sum, f) => sum + f.name.length + f.value.length, 0)

const Embeds = Schema.Array(RichEmbedRequest).check(
  Schema.makeFilter((embeds) => embeds.length <= MAX_EMBEDS || `TOO_MANY_EMBEDS: At most ${MAX_EMBEDS} embeds`),
  Schema.makeFilter((embeds) =>
    embeds.reduce((sum, e) => sum + embedCharacters(e), 0) <= MAX_EMBED_CHARACTERS ||
    `EMBEDS_EXCEED_MAX_CHARACTERS: Embeds must not exceed ${MAX_EMBED_CHARACTERS} characters in total`)
)

export const AllowedMentionsRequest = Schema.Struct({
  parse: Schema.optional(Schema.Array(Schema.Literals(["users", "roles", "everyone"]))),
  users: Schema.optional(Schema.Array(Snowflake).check(Schema.isMaxLength(100))),
  roles: Schema.optional(Schema.Array(Snowflake).check(Schema.isMaxLength(100))),
  replied_user: Schema.optional(Schema.Boolean)
}).check(Schema.makeFilter((m) =>
  !((m.parse?.includes("users") && m.users !== undefined) || (m.parse?.includes("roles") && m.roles !== undefined)) ||
  "PARSE_AND_USERS_OR_ROLES_CANNOT_BE_USED_TOGETHER: parse cannot name users or roles that are also listed"))
export type AllowedMentionsRequest = typeof AllowedMentionsRequest.Type

export const MessageReferenceRequest = Schema.Struct({
  message_id: Snowflake,
  channel_id: Schema.optional(Snowflake),
  guild_id: Schema.optional(Snowflake),
  type: Schema.optional(Schema.Literals([0, 1])),
  attachment_ids: Schema.optional(Schema.Array(Snowflake).check(Schema.isMaxLength(10))),
  embed_indices: Schema.optional(Schema.Array(Int32).check(Schema.isMaxLength(10)))
}).check(Schema.makeFilter((r) =>
  r.type !== 1 || r.channel_id !== undefined ||
  "FORWARD_REFERENCE_REQUIRES_CHANNEL_AND_MESSAGE: A forward names the channel and the message"))
export type MessageReferenceRequest = typeof MessageReferenceRequest.Type

/** Attachment metadata: it describes uploaded files, which only a multipart request carries. */
const AttachmentRequest = Schema.Struct({
  id: Schema.Union([Int32, Snowflake]),
  filename: Schema.optional(Schema.String),
  title: Schema.optional(Schema.NullOr(Schema.String)),
  description: Schema.optional(Schema.NullOr(Schema.String)),
  flags: Schema.optional(Int32),
  duration: Schema.optional(Schema.NullOr(Int32)),
  waveform: Schema.optional(Schema.NullOr(Schema.String))
})

// The ceiling: the instance's configured limit, at most this, is checked where messages are sent (src/messages/ContentLength.ts).
const Content = BoundedText(0, CEILINGS.messageLength, "CONTENT_EXCEEDS_MAX_LENGTH")

export const MessageCreateRequest = Schema.Struct({
  content: Schema.optional(Schema.NullOr(Content)),
  embeds: Schema.optional(Embeds),
  attachments: Schema.optional(Schema.Array(AttachmentRequest).check(Schema.isMaxLength(10))),
  message_reference: Schema.optional(Schema.NullOr(MessageReferenceRequest)),
  allowed_mentions: Schema.optional(Schema.NullOr(AllowedMentionsRequest)),
  flags: Schema.optional(Int32),
  // Clients send a string or a number; either is echoed back as a string.
  nonce: Schema.optional(Schema.Union([BoundedText(1, 25), Schema.Int])),
  favorite_meme_id: Schema.optional(Schema.NullOr(Snowflake)),
  sticker_ids: Schema.optional(Schema.NullOr(Schema.Array(Snowflake).check(Schema.isMaxLength(3)))),
  tts: Schema.optional(Schema.Boolean)
})
export type MessageCreateRequest = typeof MessageCreateRequest.Type

export const MessageUpdateRequest = Schema.Struct({
  content: Schema.optional(Schema.NullOr(Content)),
  embeds: Schema.optionalKey(Embeds),
  allowed_mentions: Schema.optional(Schema.NullOr(AllowedMentionsRequest)),
  flags: Schema.optionalKey(Int32),
  /** The attachments to keep, by id; the others are removed. */
  attachments: Schema.optionalKey(Schema.Array(AttachmentRequest).check(Schema.isMaxLength(10)))
})
export type MessageUpdateRequest = typeof MessageUpdateRequest.Type

const BulkIds = Schema.Array(MessageId).check(Schema.makeFilter((ids) =>
  ids.length <= MAX_BULK_DELETE ||
  `CANNOT_DELETE_MORE_THAN_100_MESSAGES: At most ${MAX_BULK_DELETE} messages at once`))

/** `messages` and `message_ids` are two names for the same list. */
export const BulkDeleteMessagesRequest = Schema.Struct({
  messages: Schema.optional(BulkIds),
  message_ids: Schema.optional(BulkIds)
})

export const MessageAckRequest = Schema.Struct({
  mention_count: Schema.optional(Int32),
  manual: Schema.optional(Schema.Boolean)
})

/** `limit` 1..100 (conventions.md, Paging); it arrives as text. */
export const MessageLimit = Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 100 }))
export const DEFAULT_LIMIT = 50
