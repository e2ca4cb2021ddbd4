import { Schema } from "effect"
import { BoundedText, WellFormedText } from "./Common.ts"
import { Snowflake } from "./Ids.ts"
import { isWebUrl, MessageCreateRequest, MessageUpdateRequest } from "./MessageRequests.ts"
import { UserPartialResponse } from "./Users.ts"

/** conventions.md, Limits. */
export const MAX_WEBHOOKS_PER_CHANNEL = 15
export const MAX_WEBHOOKS_PER_GUILD = 1000

/** WebhookType: the only kind made here is the incoming one. */
export const INCOMING_WEBHOOK = 1

/** 1 to 80 characters once trimmed, as the production service counts them. */
export const WebhookName = BoundedText(1, 80).check(
  Schema.makeFilter((s: string) => s.trim().length > 0 || "STRING_LENGTH_INVALID: Must be between 1 and 80 in length")
)

/** A Base64ImageType field: checked and stored by the handler (src/webhooks/Avatars.ts). */
const AvatarImage = Schema.NullOr(WellFormedText)

export const WebhookCreateRequest = Schema.Struct({
  name: WebhookName,
  avatar: Schema.optional(AvatarImage)
})
export type WebhookCreateRequest = typeof WebhookCreateRequest.Type

export const WebhookTokenUpdateRequest = Schema.Struct({
  name: Schema.optionalKey(WebhookName),
  avatar: Schema.optional(AvatarImage)
})
export type WebhookTokenUpdateRequest = typeof WebhookTokenUpdateRequest.Type

export const WebhookUpdateRequest = Schema.Struct({
  ...WebhookTokenUpdateRequest.fields,
  channel_id: Schema.optionalKey(Snowflake)
})
export type WebhookUpdateRequest = typeof WebhookUpdateRequest.Type

/** A message create with the author's name and picture overridden for this one message. */
export const WebhookMessageRequest = Schema.Struct({
  ...MessageCreateRequest.fields,
  username: Schema.optional(Schema.NullOr(WebhookName)),
  avatar_url: Schema.optional(Schema.NullOr(
    WellFormedText.check(Schema.makeFilter((s: string) => isWebUrl(s) || "INVALID_URL_FORMAT: Not an http(s) URL"))
  ))
})
export type WebhookMessageRequest = typeof WebhookMessageRequest.Type

/** A webhook edits its message's text, embeds, flags and pings; files stay as they are. */
export const WebhookMessageEditRequest = Schema.Struct({
  content: MessageUpdateRequest.fields.content,
  embeds: MessageUpdateRequest.fields.embeds,
  flags: MessageUpdateRequest.fields.flags,
  allowed_mentions: MessageUpdateRequest.fields.allowed_mentions
})
export type WebhookMessageEditRequest = typeof WebhookMessageEditRequest.Type

export const WebhookTokenResponse = Schema.Struct({
  id: Schema.String,
  guild_id: Schema.String,
  channel_id: Schema.String,
  name: Schema.String,
  avatar: Schema.NullOr(Schema.String),
  /** Only the create answer and the by-token routes carry it; elsewhere "" (it is stored hashed). */
  token: Schema.String
})
export type WebhookTokenResponse = typeof WebhookTokenResponse.Type

export const WebhookResponse = Schema.Struct({
  ...WebhookTokenResponse.fields,
  /** Who made it. */
  user: UserPartialResponse
})
export type WebhookResponse = typeof WebhookResponse.Type
