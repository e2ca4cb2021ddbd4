import { Context, Effect, Layer, Schema } from "effect"
import { AppConfig } from "../platform/Config.ts"
import { RedisClient } from "../platform/Redis.ts"

/** A preview outlives its last upload by this long: a streamer's client sends a new one every few seconds while live. */
export const PREVIEW_TTL_SECONDS = 300

export interface StreamPreview {
  readonly contentType: string
  readonly bytes: Uint8Array
}

const Stored = Schema.fromJsonString(Schema.Struct({ content_type: Schema.String, data: Schema.String }))
const encode = Schema.encodeSync(Stored)
const decode = Schema.decodeUnknownOption(Stored)

/**
 * The latest preview image of each live stream, kept only for a while (a
 * stream that ended leaves nothing behind): in memory in embedded mode, in
 * Redis with an expiry in cluster mode so every API process serves it.
 */
export class StreamPreviews extends Context.Service<StreamPreviews, {
  readonly put: (streamKey: string, preview: StreamPreview) => Effect.Effect<void>
  readonly get: (streamKey: string) => Effect.Effect<StreamPreview | undefined>
}>()("guildhall/StreamPreviews") {
  static readonly layerLocal = Layer.sync(StreamPreviews, () => {
    const held = new Map<string, StreamPreview & { readonly until: number }>()
    return StreamPreviews.of({
      put: (key, preview) =>
        Effect.sync(() => {
          const now = Date.now()
          // Expired ones go as new ones come: the map never holds more than the streams of the last TTL.
          for (const [k, v] of held) if (v.until <= now) held.delete(k)
          held.set(key, { ...preview, until: now + PREVIEW_TTL_SECONDS * 1000 })
        }),
      get: (key) =>
        Effect.sync(() => {
          const found = held.get(key)
          return found === undefined || found.until <= Date.now() ? undefined : { contentType: found.contentType, bytes: found.bytes }
        })
    })
  })

  static readonly layerRedis = Layer.effect(
    StreamPreviews,
    Effect.gen(function*() {
      const redis = yield* RedisClient
      const { redisKeyPrefix } = yield* AppConfig
      const keyOf = (streamKey: string) => `${redisKeyPrefix}streams:preview:${streamKey}`
      return StreamPreviews.of({
        put: (key, preview) =>
          Effect.promise(() =>
            redis.set(
              keyOf(key),
              encode({ content_type: preview.contentType, data: Buffer.from(preview.bytes).toString("base64") }),
              "EX",
              PREVIEW_TTL_SECONDS
            )
          ).pipe(Effect.asVoid),
        get: (key) =>
          Effect.map(Effect.promise(() => redis.get(keyOf(key))), (text) => {
            if (text === null) return undefined
            const stored = decode(text)
            return stored._tag === "None"
              ? undefined
              : { contentType: stored.value.content_type, bytes: Buffer.from(stored.value.data, "base64") }
          })
      })
    })
  )
}
