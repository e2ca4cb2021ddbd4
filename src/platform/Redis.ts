import { Context, Effect, Layer, Option, Redacted } from "effect"
import { Redis } from "ioredis"
import { AppConfig } from "./Config.ts"

/** The shared ioredis connection of a process in cluster mode. */
export class RedisClient extends Context.Service<RedisClient, Redis>()("guildhall/RedisClient") {
  /** Connects to `url` and closes the connection when the scope ends. */
  static readonly layerUrl = (url: string) =>
    Layer.effect(
      RedisClient,
      Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableAutoPipelining: true })
            await redis.connect()
            return redis
          },
          catch: (cause) => new Error(`cannot reach Redis at REDIS_URL: ${String(cause)}`)
        }),
        (redis) => Effect.promise(() => redis.quit().catch(() => "closed"))
      ).pipe(Effect.orDie)
    )

  /** From `REDIS_URL`; only built in cluster mode. */
  static readonly layer = Layer.unwrap(
    Effect.gen(function*() {
      const { redisUrl } = yield* AppConfig
      if (Option.isNone(redisUrl)) {
        return yield* Effect.die(new Error("RedisClient needs REDIS_URL"))
      }
      return RedisClient.layerUrl(Redacted.value(redisUrl.value))
    })
  )
}
