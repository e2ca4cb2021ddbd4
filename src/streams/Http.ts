import { Effect, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { checkStreamPreview } from "../../shards/guild/operations/Voice.ts"
import { Dms } from "../dms/Dms.ts"
import { Actors } from "../guilds/Actors.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { contentTypeOf, inspectImage } from "../media/Images.ts"
import { ChannelLookup } from "../messages/ChannelLookup.ts"
import { BadRequest, NotFound } from "../model/Errors.ts"
import { CarriedId } from "../model/Ids.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { StreamPreviews } from "./Previews.ts"
import { invalidStreamKey, parseStreamKey, type StreamKey } from "./StreamKey.ts"

const badThumbnail = () => new BadRequest({ code: "INVALID_STREAM_THUMBNAIL_PAYLOAD", message: "Invalid stream thumbnail payload" })
const noPreview = () => new NotFound({ code: "UNKNOWN_STREAM_PREVIEW", message: "Unknown stream preview" })

/** Base64 (standard or URL-safe, padded or not), strictly: anything else is not a thumbnail. */
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/

const StreamsHandlers = HttpApiBuilder.group(Api, "streams", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const channels = yield* ChannelLookup
    const dms = yield* Dms
    const previews = yield* StreamPreviews

    /**
     * The key names the channel it streams in, in the scope that channel is in:
     * a guild voice channel the user may connect to (and with `upload`, stream
     * in), or a DM channel they are a recipient of.
     */
    const allowed = (key: StreamKey, userId: string, upload: boolean) =>
      channels.byOwner(key.channelId, {
        guild: (guildId) =>
          key.scope === "guild" && key.guildId === guildId
            ? Effect.asVoid(actors.read(guildId, checkStreamPreview, { channelId: CarriedId.ChannelId.make(key.channelId), now: Date.now(), upload }, userId))
            : Effect.fail(new BadRequest({ code: "STREAM_KEY_SCOPE_MISMATCH", message: "Stream key scope mismatch" })),
        dm: () =>
          key.scope === "dm"
            ? dms.recipient(key.channelId, userId)
            : Effect.fail(new BadRequest({ code: "STREAM_KEY_SCOPE_MISMATCH", message: "Stream key scope mismatch" }))
      })

    const parsed = (text: string) => {
      const key = parseStreamKey(text)
      return key === undefined ? Effect.fail(invalidStreamKey()) : Effect.succeed(key)
    }

    return handlers
      .handle("getPreview", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const key = yield* parsed(params.stream_key)
          yield* allowed(key, me.id, false)
          const preview = yield* previews.get(params.stream_key)
          if (preview === undefined) return yield* noPreview()
          return HttpServerResponse.uint8Array(preview.bytes, {
            contentType: preview.contentType,
            headers: { "cache-control": "no-store, private" }
          })
        }))
      .handle("uploadPreview", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const key = yield* parsed(params.stream_key)
          if (key.channelId !== payload.channel_id) {
            return yield* new BadRequest({ code: "STREAM_KEY_CHANNEL_MISMATCH", message: "Stream key channel mismatch" })
          }
          yield* allowed(key, me.id, true)
          // A data URL's prefix is allowed, as browsers' canvases produce one.
          const data = payload.thumbnail.replace(/^data:[^,]{1,100},/, "")
          if (!BASE64.test(data)) return yield* badThumbnail()
          const bytes = Buffer.from(data, data.includes("-") || data.includes("_") ? "base64url" : "base64")
          // Only images are kept and served, with the type their bytes say, whatever the client claims.
          const image = bytes.length === 0 ? undefined : inspectImage(bytes)
          if (image === undefined) return yield* badThumbnail()
          yield* previews.put(params.stream_key, { contentType: contentTypeOf[image.format], bytes })
          return HttpServerResponse.empty({ status: 204 })
        }))
  })))

export const StreamsHttp = perRequestMiddlewaresOnly(StreamsHandlers).pipe(
  Layer.provide([ChannelLookup.layer, RateLimitLive, Dms.layer])
)
