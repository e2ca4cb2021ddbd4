import { Effect, Queue, type Scope } from "effect"
import { Redis } from "ioredis"
import { RedisClient } from "./Redis.ts"

/** Reread even without a notice, should one be lost (a subscriber away from Redis). */
const REREAD_EVERY = "30 seconds"

/**
 * Keeps a copy held in memory by every process of a cluster in step with
 * Postgres, the truth: this process rereads (`reread`) when a notice comes on
 * `channel`, when its subscriber connection has subscribed (again: it may have
 * missed notices while away), and every half minute anyway. The answer,
 * `announce`, tells every process (this one too) to reread after a change;
 * a notice that cannot be published is logged, and the half-minute reread
 * brings the others in step. `what` names the copy in the logs.
 */
export const rereadOnNotice = (
  channel: string,
  reread: Effect.Effect<void, unknown>,
  what: string
): Effect.Effect<{ readonly announce: Effect.Effect<void> }, never, RedisClient | Scope.Scope> =>
  Effect.gen(function*() {
    const redis = yield* RedisClient
    const wanted = yield* Queue.sliding<void>(1)
    const subscriber = yield* Effect.acquireRelease(
      Effect.sync(() => new Redis({ ...redis.options, lazyConnect: true, connectionName: `${channel}:subscriber` })),
      (s) => Effect.promise(() => s.quit().catch(() => "closed"))
    )
    subscriber.on("message", () => void Queue.offerUnsafe(wanted, undefined))
    subscriber.on("ready", () => void Queue.offerUnsafe(wanted, undefined))
    yield* Effect.promise(async () => {
      await subscriber.connect()
      await subscriber.subscribe(channel)
    })
    yield* Queue.take(wanted).pipe(
      Effect.timeoutOption(REREAD_EVERY),
      Effect.andThen(reread),
      Effect.catchCause((cause) => Effect.logWarning(`${what}: rereading failed`, cause)),
      Effect.forever,
      Effect.forkScoped
    )
    return {
      announce: Effect.tryPromise(() => redis.publish(channel, "changed")).pipe(
        Effect.asVoid,
        Effect.catch((error) => Effect.logWarning(`${what}: a change was not published`, error))
      )
    }
  })
