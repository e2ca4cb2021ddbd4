import { Schema } from "effect"
import { UserPartialResponse } from "./Users.ts"

/**
 * A message as the API shows it (reference/schemas.md, MessageResponseSchema).
 * Plain JSON data with no transformations: what the guild actor keeps of a
 * message is its encoded JSON, served as it is.
 */
const NullableString = Schema.NullOr(Schema.String)

export const MessageType = { DEFAULT: 0, REPLY: 19 } as const

export const MessageFlag = {
  SUPPRESS_EMBEDS: 1 << 2,
  SUPPRESS_NOTIFICATIONS: 1 << 12,
  VOICE_MESSAGE: 1 << 13
} as const

export const MessageReferenceType = { REPLY: 0, FORWARD: 1 } as const

/** `flags` (EmbedMediaFlags) is always sent now; rows stored before it was carry none. */
const EmbedMedia = Schema.Struct({ url: Schema.String, description: Schema.optional(NullableString), flags: Schema.optional(Schema.Int) })
const EmbedAuthor = Schema.Struct({
  name: Schema.String,
  url: Schema.optional(NullableString),
  icon_url: Schema.optional(NullableString)
})

export const MessageEmbedResponse = Schema.Struct({
  type: Schema.String,
  url: Schema.optional(NullableString),
  title: Schema.optional(NullableString),
  color: Schema.optional(Schema.NullOr(Schema.Int)),
  timestamp: Schema.optional(NullableString),
  description: Schema.optional(NullableString),
  author: Schema.optional(Schema.NullOr(EmbedAuthor)),
  image: Schema.optional(Schema.NullOr(EmbedMedia)),
  thumbnail: Schema.optional(Schema.NullOr(EmbedMedia)),
  footer: Schema.optional(Schema.NullOr(Schema.Struct({ text: Schema.String, icon_url: Schema.optional(NullableString) }))),
  fields: Schema.optional(Schema.NullOr(Schema.Array(Schema.Struct({
    name: Schema.String,
    value: Schema.String,
    inline: Schema.Boolean
  })))),
  /** The site an embed was made from (a link's preview); searched by `embed_provider`. */
  provider: Schema.optional(Schema.NullOr(EmbedAuthor))
})
export type MessageEmbedResponse = typeof MessageEmbedResponse.Type

export const MessageAttachmentResponse = Schema.Struct({
  id: Schema.String,
  filename: Schema.String,
  title: Schema.optional(NullableString),
  description: Schema.optional(NullableString),
  content_type: Schema.optional(NullableString),
  size: Schema.Int,
  url: Schema.optional(NullableString),
  width: Schema.optional(Schema.NullOr(Schema.Int)),
  height: Schema.optional(Schema.NullOr(Schema.Int)),
  flags: Schema.Int,
  duration: Schema.optional(Schema.NullOr(Schema.Int)),
  waveform: Schema.optional(NullableString)
})
export type MessageAttachmentResponse = typeof MessageAttachmentResponse.Type

export const MessageStickerResponse = Schema.Struct({ id: Schema.String, name: Schema.String, animated: Schema.Boolean })
export type MessageStickerResponse = typeof MessageStickerResponse.Type

export const MessageReferenceResponse = Schema.Struct({
  channel_id: Schema.String,
  message_id: Schema.String,
  guild_id: Schema.optional(NullableString),
  type: Schema.Literals([MessageReferenceType.REPLY, MessageReferenceType.FORWARD])
})
export type MessageReferenceResponse = typeof MessageReferenceResponse.Type

/** What a forward carries of the message it forwards: a copy, as it was then. */
export const MessageSnapshotResponse = Schema.Struct({
  content: Schema.optional(NullableString),
  timestamp: Schema.String,
  edited_timestamp: Schema.optional(NullableString),
  mentions: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  mention_roles: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  embeds: Schema.optional(Schema.NullOr(Schema.Array(MessageEmbedResponse))),
  attachments: Schema.optional(Schema.NullOr(Schema.Array(MessageAttachmentResponse))),
  stickers: Schema.optional(Schema.NullOr(Schema.Array(MessageStickerResponse))),
  type: Schema.Int,
  flags: Schema.Int
})
export type MessageSnapshotResponse = typeof MessageSnapshotResponse.Type

/** One emoji's reactions on a message; `me` is whether the viewer is among them. */
export const MessageReactionResponse = Schema.Struct({
  emoji: Schema.Struct({
    id: Schema.optional(Schema.NullOr(Schema.String)),
    name: Schema.String,
    animated: Schema.optional(Schema.NullOr(Schema.Boolean))
  }),
  count: Schema.Int,
  me: Schema.optional(Schema.NullOr(Schema.Boolean))
})
export type MessageReactionResponse = typeof MessageReactionResponse.Type

const messageFields = {
  id: Schema.String,
  channel_id: Schema.String,
  author: UserPartialResponse,
  /** Set on a webhook's message; its author is then the webhook, not a user. */
  webhook_id: Schema.optional(Schema.String),
  type: Schema.Int,
  flags: Schema.Int,
  content: Schema.String,
  timestamp: Schema.String,
  edited_timestamp: NullableString,
  pinned: Schema.Boolean,
  mention_everyone: Schema.Boolean,
  tts: Schema.Boolean,
  mentions: Schema.Array(UserPartialResponse),
  mention_roles: Schema.Array(Schema.String),
  embeds: Schema.Array(MessageEmbedResponse),
  attachments: Schema.Array(MessageAttachmentResponse),
  stickers: Schema.optional(Schema.Array(MessageStickerResponse)),
  message_reference: Schema.optional(MessageReferenceResponse),
  message_snapshots: Schema.optional(Schema.Array(MessageSnapshotResponse)),
  nonce: Schema.optional(NullableString),
  reactions: Schema.optional(Schema.Array(MessageReactionResponse))
}

/** The message a reply answers, as shown inside the reply (one level deep). */
export const ReferencedMessage = Schema.Struct(messageFields)
export type ReferencedMessage = typeof ReferencedMessage.Type

export const MessageResponse = Schema.Struct({
  ...messageFields,
  referenced_message: Schema.optional(Schema.NullOr(ReferencedMessage))
})
export type MessageResponse = typeof MessageResponse.Type

/** The message without what only a reply shows of the message it answers. */
export const withoutReferenced = ({ referenced_message: _, ...message }: MessageResponse): ReferencedMessage => message
