import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { countMemes, deleteMeme, getMeme, listMemes, saveMeme, updateMeme } from "../../shards/user/operations/FavoriteMemes.ts"
import { UserActors } from "../guilds/UserActors.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { RemoteFetch } from "../media/RemoteFetch.ts"
import { ChannelLookup } from "../messages/ChannelLookup.ts"
import { messageCopies } from "../messages/References.ts"
import { MessagesRepo } from "../messages/Repo.ts"
import { invalidField } from "../model/Errors.ts"
import { cleanAltText, cleanTags, type FavoriteMemeResponse, MAX_NAME, maxFavoriteMemes } from "../model/FavoriteMemes.ts"
import { AppConfig } from "../platform/Config.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { mediaSources, type StoredMedia } from "./Sources.ts"

/** A name as kept: trimmed, and required once trimmed. */
const cleanName = (name: string) =>
  name.trim() === "" ? Effect.fail(invalidField("name", "FAVORITE_MEME_NAME_REQUIRED", "A name is required")) : Effect.succeed(name.trim())

/** The file's name without its extension, as production names a meme saved from a URL without a name. */
const stemOf = (filename: string) => {
  const dot = filename.lastIndexOf(".")
  return [...(dot <= 0 ? filename : filename.slice(0, dot))].slice(0, MAX_NAME).join("")
}

/**
 * Saved media, kept by each user's actor (shards/user/operations/FavoriteMemes.ts,
 * as saved messages and notes are): the handlers find and store the bytes,
 * the actor decides whether the user may keep them and tells their sessions.
 */
const MemesHandlers = HttpApiBuilder.group(Api, "memes", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const users = yield* UserActors
    const snowflakes = yield* Snowflakes
    const { memesMaxPerUser } = yield* AppConfig
    const sources = yield* mediaSources
    const { forwardedCopy } = yield* messageCopies

    /** Refused before any file is fetched when the user is already at the limit; the save checks again. */
    const roomFor = (userId: string) =>
      Effect.flatMap(users.read(userId, countMemes, {}), (count) =>
        count >= memesMaxPerUser ? Effect.fail(maxFavoriteMemes(memesMaxPerUser)) : Effect.void)

    const save = (userId: string, stored: StoredMedia, fields: {
      readonly name: string
      readonly altText: string | null
      readonly tags: ReadonlyArray<string>
      readonly gifbSlug: string | null
      readonly gifaSlugId: string | null
    }) => {
      const meme: FavoriteMemeResponse = {
        id: snowflakes.next(),
        user_id: userId,
        name: fields.name,
        alt_text: fields.altText,
        tags: fields.tags,
        // The meme's own attachment id, as production gives it: the file is the user's, not the message's.
        attachment_id: snowflakes.next(),
        filename: stored.filename,
        content_type: stored.media.contentType,
        content_hash: stored.hash,
        size: stored.size,
        width: stored.media.width,
        height: stored.media.height,
        duration: null,
        url: stored.url,
        is_gifv: stored.isGifv,
        gifb_slug: fields.gifbSlug,
        gifa_slug_id: fields.gifaSlugId
      }
      return users.write(userId, saveMeme, { meme, limit: memesMaxPerUser }, { actorId: userId })
    }

    return handlers
      .handle("list", () => Effect.flatMap(CurrentUser, (me) => users.readAsResponse(me.id, listMemes, {})))
      .handle("get", ({ params }) => Effect.flatMap(CurrentUser, (me) => users.read(me.id, getMeme, { id: params.meme_id })))
      .handle("createFromUrl", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* roomFor(me.id)
          const gifbSlug = payload.gifb_slug?.trim() || null
          const gifaSlugId = payload.gifa_slug_id ?? null
          // A video a GIF provider serves is a GIF made video: shown looping and silent.
          const fromGifProvider = gifbSlug !== null || gifaSlugId !== null
          const stored = yield* sources.fromUrl(payload.url, "url", (media) => fromGifProvider && media.contentType.startsWith("video/"))
          const name = payload.name?.trim() || stemOf(stored.filename) || "media"
          return yield* save(me.id, stored, {
            name,
            altText: cleanAltText(payload.alt_text),
            tags: cleanTags(payload.tags),
            gifbSlug,
            gifaSlugId
          })
        }))
      .handle("createFromMessage", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const name = yield* cleanName(payload.name)
          // Read as the caller may read it: 403/404 as GET /channels/{id}/messages/{id} answers.
          const { message } = yield* forwardedCopy(params.channel_id, { message_id: params.message_id }, me.id)
          yield* roomFor(me.id)
          const stored = yield* sources.fromMessage(message, payload.attachment_id ?? null, payload.embed_index ?? null)
          return yield* save(me.id, stored, {
            name,
            altText: cleanAltText(payload.alt_text) ?? cleanAltText(stored.description),
            tags: cleanTags(payload.tags),
            gifbSlug: null,
            gifaSlugId: null
          })
        }))
      .handle("update", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const name = payload.name === undefined ? undefined : yield* cleanName(payload.name)
          return yield* users.write(me.id, updateMeme, {
            id: params.meme_id,
            ...(name === undefined ? {} : { name }),
            ...(payload.alt_text === undefined ? {} : { altText: cleanAltText(payload.alt_text) }),
            ...(payload.tags == null ? {} : { tags: cleanTags(payload.tags) })
          }, { actorId: me.id })
        }))
      .handle("delete", ({ params }) =>
        Effect.flatMap(CurrentUser, (me) => Effect.asVoid(users.write(me.id, deleteMeme, { id: params.meme_id }, { actorId: me.id }))))
  })))

export const MemesHttp = perRequestMiddlewaresOnly(MemesHandlers).pipe(
  Layer.provide([ChannelLookup.layer, MessagesRepo.layer, RemoteFetch.layer, RateLimitLive])
)
