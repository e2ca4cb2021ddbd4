import { Schema } from "effect"

const MAX_SNOWFLAKE = 2n ** 63n - 1n

/**
 * A snowflake id as it travels: a decimal string. Check messages carry the
 * validation code first; the error mapper turns it into the field error's `code`.
 */
export const Snowflake = Schema.String.check(
  Schema.isPattern(/^(0|[1-9][0-9]{0,18})$/, { message: "INVALID_SNOWFLAKE_FORMAT: Value is not a snowflake" }),
  Schema.makeFilter((s: string) => BigInt(s) <= MAX_SNOWFLAKE || "SNOWFLAKE_OUT_OF_RANGE: Snowflake is out of range")
)

/*
 * The ids of each kind of thing, as snowflakes that say what they name: a
 * guild id where a channel id belongs does not compile. A brand is a type
 * only: the checks, their messages and the wire are the snowflake's. They are
 * decoded once, at the HTTP edge (path, query and body schemas); a new id from
 * the generator is branded with `make` where it is given its kind, and one
 * read back from our own storage with `CarriedId`'s (below).
 */

export const GuildId = Snowflake.pipe(Schema.brand("GuildId"))
export type GuildId = typeof GuildId.Type

export const ChannelId = Snowflake.pipe(Schema.brand("ChannelId"))
export type ChannelId = typeof ChannelId.Type

export const UserId = Snowflake.pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type

export const MessageId = Snowflake.pipe(Schema.brand("MessageId"))
export type MessageId = typeof MessageId.Type

export const RoleId = Snowflake.pipe(Schema.brand("RoleId"))
export type RoleId = typeof RoleId.Type

export const EmojiId = Snowflake.pipe(Schema.brand("EmojiId"))
export type EmojiId = typeof EmojiId.Type

export const StickerId = Snowflake.pipe(Schema.brand("StickerId"))
export type StickerId = typeof StickerId.Type

export const AttachmentId = Snowflake.pipe(Schema.brand("AttachmentId"))
export type AttachmentId = typeof AttachmentId.Type

export const WebhookId = Snowflake.pipe(Schema.brand("WebhookId"))
export type WebhookId = typeof WebhookId.Type

export const ApplicationId = Snowflake.pipe(Schema.brand("ApplicationId"))
export type ApplicationId = typeof ApplicationId.Type

/**
 * The same ids, branded without checking their digits again: in the actors'
 * payloads (which never checked them, so a write costs and answers what it
 * did) and for ids read back from our own storage, which were checked when
 * they came in. Their types are the ids' above.
 */
export const CarriedId = {
  GuildId: Schema.String.pipe(Schema.brand("GuildId")),
  ChannelId: Schema.String.pipe(Schema.brand("ChannelId")),
  UserId: Schema.String.pipe(Schema.brand("UserId")),
  MessageId: Schema.String.pipe(Schema.brand("MessageId")),
  RoleId: Schema.String.pipe(Schema.brand("RoleId")),
  EmojiId: Schema.String.pipe(Schema.brand("EmojiId")),
  StickerId: Schema.String.pipe(Schema.brand("StickerId")),
  AttachmentId: Schema.String.pipe(Schema.brand("AttachmentId")),
  WebhookId: Schema.String.pipe(Schema.brand("WebhookId"))
}
