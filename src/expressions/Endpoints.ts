import { Schema } from "effect"
import { HttpApiEndpoint } from "effect/http-api"
import { EmojiId, StickerId } from "../model/Ids.ts"
import { ApiErrors } from "../model/Errors.ts"
import { type AcceptedCredentials, Credentials } from "../http/Authentication.ts"
import {
  GuildEmojiBulkCreateRequest,
  GuildEmojiBulkCreateResponse,
  GuildEmojiCreateRequest,
  GuildEmojiResponse,
  GuildEmojiUpdateRequest,
  GuildEmojiWithUserResponse,
  GuildStickerBulkCreateRequest,
  GuildStickerBulkCreateResponse,
  GuildStickerCreateRequest,
  GuildStickerResponse,
  GuildStickerUpdateRequest,
  GuildStickerWithUserResponse
} from "../model/Expressions.ts"

/** The names and bodies of one kind of expression's routes; the same for a guild's and a pack's. */
const kindRoutes = <
  const Singular extends string,
  const Plural extends string,
  const IdSegment extends string,
  IdParam extends Schema.Struct.Fields,
  Create extends Schema.Top,
  BulkCreate extends Schema.Top,
  Update extends Schema.Top,
  One extends Schema.Top,
  Bulk extends Schema.Top,
  WithUser extends Schema.Top
>(kind: {
  readonly singular: Singular
  readonly plural: Plural
  /** The item's path segment and its param, e.g. `/:emoji_id` and `{ emoji_id: EmojiId }`. */
  readonly idSegment: IdSegment
  readonly idParam: IdParam
  readonly create: Create
  readonly bulkCreate: BulkCreate
  readonly update: Update
  readonly one: One
  readonly bulk: Bulk
  readonly withUser: WithUser
}) =>
<const Collection extends `/${string}`, const Params extends Schema.Struct.Fields>(
  collection: Collection,
  params: Params,
  credentials: AcceptedCredentials
) => {
  const item = `${collection}${kind.idSegment}` as const
  const itemParams = { ...params, ...kind.idParam }
  return [
    HttpApiEndpoint.get(`list${kind.plural}`, collection, { params, success: Schema.Array(kind.withUser), error: ApiErrors }).annotate(Credentials, credentials),
    HttpApiEndpoint.post(`create${kind.singular}`, collection, { params, payload: kind.create, success: kind.one, error: ApiErrors }).annotate(Credentials, credentials),
    HttpApiEndpoint.post(`create${kind.plural}`, `${collection}/bulk`, {
      params,
      payload: kind.bulkCreate,
      success: kind.bulk,
      error: ApiErrors
    }).annotate(Credentials, credentials),
    HttpApiEndpoint.patch(`update${kind.singular}`, item, { params: itemParams, payload: kind.update, success: kind.one, error: ApiErrors }).annotate(Credentials, credentials),
    HttpApiEndpoint.delete(`delete${kind.singular}`, item, { params: itemParams, error: ApiErrors }).annotate(Credentials, credentials)
  ] as const
}

/** listEmojis, createEmoji, createEmojis, updateEmoji, deleteEmoji under `collection`. */
export const emojiEndpoints = kindRoutes({
  singular: "Emoji",
  plural: "Emojis",
  idSegment: "/:emoji_id",
  idParam: { emoji_id: EmojiId },
  create: GuildEmojiCreateRequest,
  bulkCreate: GuildEmojiBulkCreateRequest,
  update: GuildEmojiUpdateRequest,
  one: GuildEmojiResponse,
  bulk: GuildEmojiBulkCreateResponse,
  withUser: GuildEmojiWithUserResponse
})

/** listStickers, createSticker, createStickers, updateSticker, deleteSticker under `collection`. */
export const stickerEndpoints = kindRoutes({
  singular: "Sticker",
  plural: "Stickers",
  idSegment: "/:sticker_id",
  idParam: { sticker_id: StickerId },
  create: GuildStickerCreateRequest,
  bulkCreate: GuildStickerBulkCreateRequest,
  update: GuildStickerUpdateRequest,
  one: GuildStickerResponse,
  bulk: GuildStickerBulkCreateResponse,
  withUser: GuildStickerWithUserResponse
})
