import { Effect, type Schema } from "effect"
import type { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import * as Expressions from "../../shards/guild/operations/Expressions.ts"
import type { ReplyCodec, WriteDefinition } from "../../shards/guild/Definitions.ts"
import { Actors } from "../guilds/Actors.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { AUDIT_REASON_HEADER, decodeAuditReason } from "../guilds/AuditReason.ts"
import { MediaStore } from "../media/MediaStore.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import type { BulkFailure, GuildStickerCreateRequest } from "../model/Expressions.ts"
import { EMOJI_IMAGES, makeUploads, STICKER_IMAGES } from "./Uploads.ts"
import type { GuildId } from "../model/Ids.ts"

/** A sticker as created: absent description and tags are empty. */
const stickerFields = (sticker: GuildStickerCreateRequest) => ({
  name: sticker.name,
  description: sticker.description ?? "",
  tags: sticker.tags ?? []
})

interface BulkReply<Success> {
  readonly success: Success
  readonly failed: ReadonlyArray<BulkFailure>
}

export const ExpressionsHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "expressions", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const media = yield* MediaStore
    const snowflakes = yield* Snowflakes

    const { storeEach, storeOrFail } = makeUploads(media, snowflakes)

    /** A write of the signed-in user, with the request's audit-log reason. */
    const writeAs = <Tag extends string, Fields extends Schema.Struct.Fields, Reply extends ReplyCodec>(
      request: HttpServerRequest.HttpServerRequest,
      guildId: GuildId,
      definition: WriteDefinition<Tag, Fields, Reply>,
      fields: Schema.TaggedStruct<Tag, Fields>["~type.make.in"]
    ) => Effect.flatMap(CurrentUser, (me) => actors.write(guildId, definition, fields, { actorId: me.id, reason: decodeAuditReason(request.headers[AUDIT_REASON_HEADER]) }))

    /** Stored images' failures come first, then what the guild's limits refused. */
    const withUploadFailures = <Success>(failed: ReadonlyArray<BulkFailure>) => (reply: BulkReply<Success>) => ({
      success: reply.success,
      failed: [...failed, ...reply.failed]
    })

    return handlers
      .handle("listEmojis", ({ params }) =>
        Effect.flatMap(CurrentUser, (me) => actors.read(params.guild_id, Expressions.listEmojis, {}, me.id)))
      .handle("createEmoji", ({ params, payload, request }) =>
        Effect.flatMap(storeOrFail(payload.image, EMOJI_IMAGES), (image) =>
          writeAs(request, params.guild_id, Expressions.createEmoji, { emoji: { ...image, name: payload.name } })))
      .handle("createEmojis", ({ params, payload, request }) =>
        Effect.gen(function*() {
          const { stored, failed } = yield* storeEach(payload.emojis, "emojis", EMOJI_IMAGES)
          const emojis = stored.map(({ item, image }) => ({ ...image, name: item.name }))
          return yield* Effect.map(writeAs(request, params.guild_id, Expressions.createEmojis, { emojis }), withUploadFailures(failed))
        }))
      .handle("updateEmoji", ({ params, payload, request }) =>
        writeAs(request, params.guild_id, Expressions.updateEmoji, { emojiId: params.emoji_id, name: payload.name }))
      .handle("deleteEmoji", ({ params, request }) =>
        Effect.asVoid(writeAs(request, params.guild_id, Expressions.deleteEmoji, { emojiId: params.emoji_id })))
      .handle("listStickers", ({ params }) =>
        Effect.flatMap(CurrentUser, (me) => actors.read(params.guild_id, Expressions.listStickers, {}, me.id)))
      .handle("createSticker", ({ params, payload, request }) =>
        Effect.flatMap(storeOrFail(payload.image, STICKER_IMAGES), (image) =>
          writeAs(request, params.guild_id, Expressions.createSticker, { sticker: { ...image, ...stickerFields(payload) } })))
      .handle("createStickers", ({ params, payload, request }) =>
        Effect.gen(function*() {
          const { stored, failed } = yield* storeEach(payload.stickers, "stickers", STICKER_IMAGES)
          const stickers = stored.map(({ item, image }) => ({ ...image, ...stickerFields(item) }))
          return yield* Effect.map(writeAs(request, params.guild_id, Expressions.createStickers, { stickers }), withUploadFailures(failed))
        }))
      .handle("updateSticker", ({ params, payload, request }) =>
        writeAs(request, params.guild_id, Expressions.updateSticker, { stickerId: params.sticker_id, patch: payload }))
      .handle("deleteSticker", ({ params, request }) =>
        Effect.asVoid(writeAs(request, params.guild_id, Expressions.deleteSticker, { stickerId: params.sticker_id })))
  }))))
