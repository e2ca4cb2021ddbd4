import { Effect, Layer, Schema } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { makeUploads } from "../expressions/Uploads.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { unauthorized } from "../model/Errors.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { InviteLookup } from "../invites/Lookup.ts"
import { MediaStore } from "../media/MediaStore.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { UsersRepo } from "../users/Repo.ts"
import { toUserPartial } from "../model/Users.ts"
import { CREATED_LIMIT, INSTALLED_LIMIT, invalidPackType, maxPacks, packAccess } from "./Access.ts"
import { PackInvites } from "./Invites.ts"
import { PACK_EMOJIS, PACK_STICKERS, makePackItems } from "./Items.ts"
import { PacksRepo } from "./Repo.ts"
import { PackType } from "./Schemas.ts"

/** A sticker's text as created: absent description and tags are empty. */
const stickerText = (sticker: { readonly description?: string | null | undefined; readonly tags?: ReadonlyArray<string> | undefined }) => ({
  description: sticker.description ?? "",
  tags: sticker.tags ?? []
})
const isPackType = Schema.is(PackType)

const PacksHandlers = HttpApiBuilder.group(Api, "packs", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const repo = yield* PacksRepo
    const users = yield* UsersRepo
    const snowflakes = yield* Snowflakes
    const uploads = makeUploads(yield* MediaStore, snowflakes)
    const access = packAccess(repo)
    const packInvites = yield* PackInvites
    const lookup = yield* InviteLookup

    const userOf = (userId: string) =>
      Effect.flatMap(users.findById(userId), (row) => (row === undefined ? Effect.fail(unauthorized()) : Effect.succeed(toUserPartial(row))))

    const items = makePackItems(repo, access, uploads, userOf)

    /** Invites name a pack of either kind. */
    const anyPack = (packId: string, userId: string) =>
      Effect.flatMap(repo.find(packId), (pack) => access.managed(packId, pack?.type ?? "emoji", userId))

    return handlers
      .handle("dashboard", () =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const created = yield* repo.created(me.id)
          const installed = yield* repo.installed(me.id)
          const kind = (type: PackType) => ({
            installed_limit: INSTALLED_LIMIT,
            created_limit: CREATED_LIMIT,
            installed: installed.filter((p) => p.type === type),
            created: created.filter((p) => p.type === type)
          })
          return { emoji: kind("emoji"), sticker: kind("sticker") }
        }))
      .handle("create", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const type = params.pack_type
          if (!isPackType(type)) return yield* invalidPackType()
          const mine = yield* repo.created(me.id)
          if (mine.filter((p) => p.type === type).length >= CREATED_LIMIT) return yield* maxPacks()
          return yield* repo.create({ id: snowflakes.next(), type, name: payload.name, description: payload.description ?? null, creatorId: me.id })
        }))
      .handle("install", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const pack = yield* repo.find(params.pack_id)
          // Others install through a pack invite (accepted at /invites/{code}); here only the creator reinstalls.
          yield* access.managed(params.pack_id, pack?.type ?? "emoji", me.id)
          yield* repo.install(params.pack_id, me.id)
        }))
      .handle("invites", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const pack = yield* anyPack(params.pack_id, me.id)
          const rows = yield* repo.invites(pack.id)
          return yield* Effect.forEach(rows, (row) => packInvites.metadata(pack, row))
        }))
      .handle("createInvite", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const pack = yield* anyPack(params.pack_id, me.id)
          const row = yield* repo.createInvite({
            // Codes share /invites/{code} with guild invites, so they are drawn from the same space.
            code: yield* lookup.newCode,
            packId: pack.id,
            inviterId: me.id,
            maxUses: payload.max_uses ?? 0,
            maxAgeSeconds: payload.max_age ?? 86400
          })
          return yield* packInvites.metadata(pack, row)
        }))
      .handle("listEmojis", ({ params }) => items.list(PACK_EMOJIS, params.pack_id))
      .handle("createEmoji", ({ params, payload }) =>
        items.createOne(PACK_EMOJIS, params.pack_id, payload.image, payload.name, { description: "", tags: [] }))
      .handle("createEmojis", ({ params, payload }) =>
        items.createMany(PACK_EMOJIS, params.pack_id, payload.emojis, "emojis", () => ({ description: "", tags: [] })))
      .handle("updateEmoji", ({ params, payload }) =>
        Effect.gen(function*() {
          const item = yield* items.managedItem(PACK_EMOJIS, params.pack_id, params.emoji_id)
          yield* repo.updateItem(item.id, { name: payload.name, description: "", tags: [] })
          return PACK_EMOJIS.view({ ...item, name: payload.name })
        }))
      .handle("deleteEmoji", ({ params }) =>
        Effect.flatMap(items.managedItem(PACK_EMOJIS, params.pack_id, params.emoji_id), (item) => repo.deleteItem(item.id)))
      .handle("listStickers", ({ params }) => items.list(PACK_STICKERS, params.pack_id))
      .handle("createSticker", ({ params, payload }) =>
        items.createOne(PACK_STICKERS, params.pack_id, payload.image, payload.name, stickerText(payload)))
      .handle("createStickers", ({ params, payload }) =>
        items.createMany(PACK_STICKERS, params.pack_id, payload.stickers, "stickers", stickerText))
      .handle("updateSticker", ({ params, payload }) =>
        Effect.gen(function*() {
          const item = yield* items.managedItem(PACK_STICKERS, params.pack_id, params.sticker_id)
          const next = {
            name: payload.name,
            description: payload.description === undefined ? item.description : payload.description ?? "",
            tags: payload.tags ?? item.tags
          }
          yield* repo.updateItem(item.id, next)
          return PACK_STICKERS.view({ ...item, ...next })
        }))
      .handle("deleteSticker", ({ params }) =>
        Effect.flatMap(items.managedItem(PACK_STICKERS, params.pack_id, params.sticker_id), (item) => repo.deleteItem(item.id)))
  })))

/** The pack routes, with their repository. */
export const PacksHttp = perRequestMiddlewaresOnly(PacksHandlers).pipe(
  Layer.provide(Layer.mergeAll(PackInvites.layer, InviteLookup.layer)),
  Layer.provide(PacksRepo.layer)
)
