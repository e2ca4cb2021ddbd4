import { Effect, Schedule, type Scope } from "effect"
import type { Redis } from "ioredis"

const BEAT = "5 seconds"
const EXPIRES_MS = 15_000

/** A Redis call whose failure is logged under `scope` and answered with `fallback`: the gateway carries on. */
export const loggedRedisCall = (scope: string) => <A>(what: string, fallback: A, f: () => Promise<A>) =>
  Effect.tryPromise(f).pipe(Effect.catch((error) => Effect.as(Effect.logWarning(`${scope}: ${what}`, error), fallback)))

/**
 * Keeps `processId` alive in the sorted set `processes` (the score: alive until),
 * beating every 5 seconds, and sweeps it as often: a process that stopped beating
 * 15 seconds ago is handed to `takeOver` by whichever process sees it first (the
 * take-over itself must be atomic, as two processes may see it at once).
 */
export const keepAlive = (options: {
  readonly redis: Redis
  readonly processes: string
  readonly processId: string
  readonly takeOver: (deadId: string) => Effect.Effect<void>
  readonly redisCall: ReturnType<typeof loggedRedisCall>
}): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { redis, processes, processId, takeOver, redisCall } = options
    const beat = redisCall("no heartbeat", 0, () => redis.zadd(processes, Date.now() + EXPIRES_MS, processId))
    yield* beat
    yield* beat.pipe(Effect.repeat(Schedule.spaced(BEAT)), Effect.forkScoped)
    const sweep = Effect.flatMap(
      redisCall("no sweep", [], () => redis.zrangebyscore(processes, "-inf", Date.now())),
      (stale) => Effect.forEach(stale, takeOver, { discard: true })
    )
    yield* sweep.pipe(Effect.repeat(Schedule.spaced(BEAT)), Effect.forkScoped)
  })
