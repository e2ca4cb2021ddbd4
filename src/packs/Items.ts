import { Effect } from "effect"
import type { BulkFailure, GuildEmojiResponse, GuildStickerResponse } from "../model/Expressions.ts"
import { EMOJI_IMAGES, type makeUploads, STICKER_IMAGES } from "../expressions/Uploads.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { NotFound } from "../model/Errors.ts"
import type { ImageLimits } from "../media/Images.ts"
import type { UserPartialResponse } from "../model/Users.ts"
import { maxPackExpressions, type packAccess } from "./Access.ts"
import type { NewPackItem, PackItem, PacksRepo } from "./Repo.ts"
import type { PackSummaryResponse, PackType } from "./Schemas.ts"

/** What differs between a pack's emojis and its stickers; the routes of both are one logic (Http.ts). */
export interface PackKind<View> {
  readonly type: PackType
  readonly images: ImageLimits
  readonly view: (item: PackItem) => View
  readonly unknown: () => NotFound
}

const emojiView = (item: PackItem): GuildEmojiResponse => ({ id: item.id, name: item.name, animated: item.animated, nsfw: false })

export const PACK_EMOJIS: PackKind<GuildEmojiResponse> = {
  type: "emoji",
  images: EMOJI_IMAGES,
  view: emojiView,
  unknown: () => new NotFound({ code: "UNKNOWN_EMOJI", message: "Unknown emoji" })
}

export const PACK_STICKERS: PackKind<GuildStickerResponse> = {
  type: "sticker",
  images: STICKER_IMAGES,
  view: (item) => ({ ...emojiView(item), description: item.description, tags: item.tags }),
  unknown: () => new NotFound({ code: "UNKNOWN_STICKER", message: "Unknown sticker" })
}

/** A new item's text besides its name: stickers have some, emojis none. */
type ItemText = Pick<NewPackItem, "description" | "tags">

/** Listing, creating and finding a pack's items for the signed-in user, whatever their kind. */
export const makePackItems = <UserError>(
  repo: PacksRepo["Service"],
  access: ReturnType<typeof packAccess>,
  { storeEach, storeOrFail }: ReturnType<typeof makeUploads>,
  userOf: (userId: string) => Effect.Effect<UserPartialResponse, UserError>
) => {
  /** Adds what fits; the rest fail with MAX_PACK_EXPRESSIONS. */
  const addItems = (pack: PackSummaryResponse, items: ReadonlyArray<NewPackItem>) =>
    Effect.map(repo.addItems(pack.id, pack.creator_id, items), (added) => {
      const kept = new Set(added.map((a) => a.id))
      const failed: Array<BulkFailure> = items.filter((i) => !kept.has(i.id)).map((i) => ({ name: i.name, error: "MAX_PACK_EXPRESSIONS" }))
      return { added, failed }
    })

  const managedPack = <View>(kind: PackKind<View>, packId: string) =>
    Effect.flatMap(CurrentUser, (me) => access.managed(packId, kind.type, me.id))

  const list = <View>(kind: PackKind<View>, packId: string) =>
    Effect.gen(function*() {
      const me = yield* CurrentUser
      const pack = yield* access.viewable(packId, kind.type, me.id)
      const [items, creator] = yield* Effect.zip(repo.items(pack.id), userOf(pack.creator_id))
      return items.map((item) => ({ ...kind.view(item), user: creator }))
    })

  const createOne = <View>(kind: PackKind<View>, packId: string, image: string, name: string, text: ItemText) =>
    Effect.gen(function*() {
      const pack = yield* managedPack(kind, packId)
      const stored = yield* storeOrFail(image, kind.images)
      const { added: [first] } = yield* addItems(pack, [{ ...stored, name, ...text }])
      return first === undefined ? yield* maxPackExpressions() : kind.view(first)
    })

  /** Items whose image fails, or past the pack's cap, are reported by name. */
  const createMany = <View, Item extends { readonly name: string; readonly image: string }>(
    kind: PackKind<View>,
    packId: string,
    items: ReadonlyArray<Item>,
    field: string,
    textOf: (item: Item) => ItemText
  ) =>
    Effect.gen(function*() {
      const pack = yield* managedPack(kind, packId)
      const stored = yield* storeEach(items, field, kind.images)
      const { added, failed } = yield* addItems(pack, stored.stored.map(({ item, image }) => ({ ...image, name: item.name, ...textOf(item) })))
      return { success: added.map(kind.view), failed: [...stored.failed, ...failed] }
    })

  /** The item of a pack the user manages, or 404 with the kind's code. */
  const managedItem = <View>(kind: PackKind<View>, packId: string, itemId: string) =>
    Effect.gen(function*() {
      yield* managedPack(kind, packId)
      const item = yield* repo.findItem(packId, itemId)
      return item === undefined ? yield* kind.unknown() : item
    })

  return { list, createOne, createMany, managedItem }
}
