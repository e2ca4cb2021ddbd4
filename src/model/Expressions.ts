import { Schema } from "effect"
import { BoundedText } from "./Common.ts"
import { UserPartialResponse } from "./Users.ts"

/** Emoji and sticker names: 2 to 32 (stickers 30) letters, digits and underscores. */
const ExpressionName = (max: number) =>
  BoundedText(2, max).check(
    Schema.isPattern(/^[A-Za-z0-9_]+$/, { message: "INVALID_FORMAT: Only letters, digits and underscores" })
  )

export const EmojiName = ExpressionName(32)
export const StickerName = ExpressionName(30)

/** Base64ImageType: a `data:image/...;base64,` URI; checked in full by media/Images.ts. */
export const Base64Image = Schema.String

export const GuildEmojiCreateRequest = Schema.Struct({ name: EmojiName, image: Base64Image })
export const GuildEmojiUpdateRequest = Schema.Struct({ name: EmojiName })
export const GuildEmojiBulkCreateRequest = Schema.Struct({
  emojis: Schema.Array(GuildEmojiCreateRequest).check(Schema.isMinLength(1), Schema.isMaxLength(50))
})

export const GuildEmojiResponse = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  animated: Schema.Boolean,
  nsfw: Schema.Boolean
})
export type GuildEmojiResponse = typeof GuildEmojiResponse.Type
export const GuildEmojiWithUserResponse = Schema.Struct({ ...GuildEmojiResponse.fields, user: UserPartialResponse })

/** One item of a bulk create that was not created, and the code saying why. */
export const BulkFailure = Schema.Struct({ name: Schema.String, error: Schema.String })
export type BulkFailure = typeof BulkFailure.Type

export const GuildEmojiBulkCreateResponse = Schema.Struct({
  success: Schema.Array(GuildEmojiResponse),
  failed: Schema.Array(BulkFailure)
})

const StickerDescription = Schema.NullOr(BoundedText(0, 100))
const StickerTags = Schema.Array(BoundedText(1, 50)).check(Schema.isMaxLength(10))

export const GuildStickerCreateRequest = Schema.Struct({
  name: StickerName,
  description: Schema.optional(StickerDescription),
  tags: Schema.optional(StickerTags),
  image: Base64Image
})
export type GuildStickerCreateRequest = typeof GuildStickerCreateRequest.Type
export const GuildStickerUpdateRequest = Schema.Struct({
  name: StickerName,
  description: Schema.optional(StickerDescription),
  tags: Schema.optional(StickerTags)
})
export type GuildStickerUpdateRequest = typeof GuildStickerUpdateRequest.Type
export const GuildStickerBulkCreateRequest = Schema.Struct({
  stickers: Schema.Array(GuildStickerCreateRequest).check(Schema.isMinLength(1), Schema.isMaxLength(50))
})

export const GuildStickerResponse = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  description: Schema.String,
  tags: Schema.Array(Schema.String),
  animated: Schema.Boolean,
  nsfw: Schema.Boolean
})
export type GuildStickerResponse = typeof GuildStickerResponse.Type
export const GuildStickerWithUserResponse = Schema.Struct({ ...GuildStickerResponse.fields, user: UserPartialResponse })
export const GuildStickerBulkCreateResponse = Schema.Struct({
  success: Schema.Array(GuildStickerResponse),
  failed: Schema.Array(BulkFailure)
})

/** An emoji as its guild's state holds it: the response plus where its image is and who made it. */
export const GuildEmoji = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  animated: Schema.Boolean,
  mediaHash: Schema.String,
  creator: UserPartialResponse
})
export type GuildEmoji = typeof GuildEmoji.Type

export const GuildSticker = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  description: Schema.String,
  tags: Schema.Array(Schema.String),
  animated: Schema.Boolean,
  mediaHash: Schema.String,
  creator: UserPartialResponse
})
export type GuildSticker = typeof GuildSticker.Type

/** A new expression's image, stored already: what a create command carries besides its fields. */
export const StoredImage = Schema.Struct({ id: Schema.String, mediaHash: Schema.String, animated: Schema.Boolean })
