import { Effect, Layer } from "effect"
import { Redis } from "ioredis"
import { AppConfig } from "../src/platform/Config.ts"
import { RedisClient } from "../src/platform/Redis.ts"
import { Guild } from "./guild/Protocol.ts"
import { LiveActors } from "./LiveActors.ts"

/** The channel operator commands are broadcast on to every shard process. */
export const controlChannel = (redisKeyPrefix: string) => `${redisKeyPrefix}control`

/**
 * Operator commands broadcast to every shard process. `reload-all` reloads the
 * guild actors live in this process, a few at a time.
 */
export const ControlListener = {
  layer: Layer.effectDiscard(
    Effect.gen(function*() {
      const redis = yield* RedisClient
      const { redisKeyPrefix } = yield* AppConfig
      const live = yield* LiveActors
      const guild = yield* Guild.client
      const subscriber = yield* Effect.acquireRelease(
        Effect.sync(() => new Redis(redis.options)),
        (s) => Effect.promise(() => s.quit().catch(() => "closed"))
      )
      const reloadLive = Effect.forEach(
        [...live.guilds.keys()],
        (id) => guild(id).Reload().pipe(Effect.timeout("10 seconds"), Effect.ignore),
        { concurrency: 20, discard: true }
      )
      const run = Effect.runForkWith(yield* Effect.context<never>())
      subscriber.on("message", (_channel: string, command: string) => {
        if (command === "reload-all") run(reloadLive)
      })
      yield* Effect.promise(() => subscriber.subscribe(controlChannel(redisKeyPrefix)))
    })
  )
}
