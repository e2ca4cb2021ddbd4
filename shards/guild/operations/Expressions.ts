import { Schema } from "effect"
import {
  EmojiName,
  GuildEmojiBulkCreateResponse,
  GuildEmojiResponse,
  GuildEmojiWithUserResponse,
  GuildStickerBulkCreateResponse,
  GuildStickerResponse,
  GuildStickerUpdateRequest,
  GuildStickerWithUserResponse,
  StickerName,
  StoredImage
} from "../../../src/model/Expressions.ts"
import { createMany, createOne, deleteOne, listAll, updateOne } from "../expressions/ExpressionDecisions.ts"
import { EmojiKind, StickerKind } from "../expressions/ExpressionKinds.ts"
import { read, write } from "../Definitions.ts"
import { CarriedId } from "../../../src/model/Ids.ts"

// ---- Emojis: the image is stored already, the command carries its hash ----

const NewEmoji = Schema.Struct({ ...StoredImage.fields, name: EmojiName })

/** POST /guilds/{id}/emojis */
export const createEmoji = write("CreateEmoji", { emoji: NewEmoji }, GuildEmojiResponse, (state, { emoji }, context) =>
  createOne(EmojiKind, state, emoji, context))

/** POST /guilds/{id}/emojis/bulk: what does not fit is reported per item. */
export const createEmojis = write(
  "CreateEmojis",
  { emojis: Schema.Array(NewEmoji) },
  GuildEmojiBulkCreateResponse,
  (state, { emojis }, context) => createMany(EmojiKind, state, emojis, context)
)

/** PATCH /guilds/{id}/emojis/{emoji_id}: renames. */
export const updateEmoji = write(
  "UpdateEmoji",
  { emojiId: CarriedId.EmojiId, name: EmojiName },
  GuildEmojiResponse,
  (state, { emojiId, name }, context) => updateOne(EmojiKind, state, emojiId, { name }, context)
)

/** DELETE /guilds/{id}/emojis/{emoji_id} */
export const deleteEmoji = write("DeleteEmoji", { emojiId: CarriedId.EmojiId }, Schema.Null, (state, { emojiId }, context) =>
  deleteOne(EmojiKind, state, emojiId, context))

/** GET /guilds/{id}/emojis */
export const listEmojis = read("ListEmojis", {}, Schema.Array(GuildEmojiWithUserResponse), (state, _, viewerId) =>
  listAll(EmojiKind, state, viewerId))

// ---- Stickers ----

const NewSticker = Schema.Struct({
  ...StoredImage.fields,
  name: StickerName,
  description: Schema.String,
  tags: Schema.Array(Schema.String)
})

/** POST /guilds/{id}/stickers */
export const createSticker = write("CreateSticker", { sticker: NewSticker }, GuildStickerResponse, (state, { sticker }, context) =>
  createOne(StickerKind, state, sticker, context))

/** POST /guilds/{id}/stickers/bulk */
export const createStickers = write(
  "CreateStickers",
  { stickers: Schema.Array(NewSticker) },
  GuildStickerBulkCreateResponse,
  (state, { stickers }, context) => createMany(StickerKind, state, stickers, context)
)

/** PATCH /guilds/{id}/stickers/{sticker_id}: name, and description and tags when given. */
export const updateSticker = write(
  "UpdateSticker",
  { stickerId: CarriedId.StickerId, patch: GuildStickerUpdateRequest },
  GuildStickerResponse,
  (state, { stickerId, patch }, context) =>
    updateOne(StickerKind, state, stickerId, {
      name: patch.name,
      ...(patch.description === undefined ? {} : { description: patch.description ?? "" }),
      ...(patch.tags === undefined ? {} : { tags: patch.tags })
    }, context)
)

/** DELETE /guilds/{id}/stickers/{sticker_id} */
export const deleteSticker = write("DeleteSticker", { stickerId: CarriedId.StickerId }, Schema.Null, (state, { stickerId }, context) =>
  deleteOne(StickerKind, state, stickerId, context))

/** GET /guilds/{id}/stickers */
export const listStickers = read("ListStickers", {}, Schema.Array(GuildStickerWithUserResponse), (state, _, viewerId) =>
  listAll(StickerKind, state, viewerId))

export const expressionsWrites = [
  createEmoji, createEmojis, updateEmoji, deleteEmoji, createSticker, createStickers, updateSticker, deleteSticker
] as const
export const expressionsReads = [listEmojis, listStickers] as const
