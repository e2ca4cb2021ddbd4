import { Context, Effect, Layer, Schedule } from "effect"
import { randomUUID } from "node:crypto"
import { AppConfig } from "./Config.ts"
import { RedisClient } from "./Redis.ts"

/** conventions.md: 2015-01-01, 42 bits of ms, 10 bits of node id, 12 bits of sequence. */
export const SNOWFLAKE_EPOCH = 1420070400000n
const MAX_NODE = 1024
/** Node id kept for one-off tools (the admin CLI), so they never collide with a running server. */
const TOOL_NODE = MAX_NODE - 1

export const makeGenerator = (nodeId: number, now: () => number = Date.now) => {
  let last = 0n
  let sequence = 0n
  return (): string => {
    let ms = BigInt(now()) - SNOWFLAKE_EPOCH
    if (ms < last) ms = last // the clock went back: keep ids increasing
    if (ms === last) {
      sequence = (sequence + 1n) & 0xfffn
      if (sequence === 0n) ms = last + 1n // 4096 ids this millisecond: borrow the next one
    } else {
      sequence = 0n
    }
    last = ms
    return ((ms << 22n) | (BigInt(nodeId) << 12n) | sequence).toString()
  }
}

/** The time a snowflake was made, in ms since the unix epoch. */
export const snowflakeTime = (id: string): number => Number((BigInt(id) >> 22n) + SNOWFLAKE_EPOCH)

export class Snowflakes extends Context.Service<Snowflakes, {
  readonly nodeId: number
  readonly next: () => string
}>()("guildhall/Snowflakes") {
  /** One process on its own: node id 0. */
  static readonly layerLocal = Layer.succeed(Snowflakes, { nodeId: 0, next: makeGenerator(0) })

  static readonly layerTool = Layer.succeed(Snowflakes, { nodeId: TOOL_NODE, next: makeGenerator(TOOL_NODE) })

  /**
   * Many processes: each leases a node id in Redis and keeps the lease alive,
   * so two running processes never mint the same id.
   */
  static readonly layerLeased = Layer.effect(
    Snowflakes,
    Effect.gen(function*() {
      const redis = yield* RedisClient
      const { redisKeyPrefix } = yield* AppConfig
      const owner = randomUUID()
      const leaseMs = 30_000
      const key = (n: number) => `${redisKeyPrefix}snowflake-node:${n}`
      const start = Math.floor(Math.random() * TOOL_NODE)
      let nodeId = -1
      for (let i = 0; i < TOOL_NODE && nodeId < 0; i++) {
        const candidate = (start + i) % TOOL_NODE
        const taken = yield* Effect.promise(() => redis.set(key(candidate), owner, "PX", leaseMs, "NX"))
        if (taken === "OK") nodeId = candidate
      }
      if (nodeId < 0) return yield* Effect.die(new Error("no free snowflake node id: 1023 processes hold one"))
      yield* Effect.promise(() => redis.pexpire(key(nodeId), leaseMs)).pipe(
        Effect.repeat(Schedule.spaced("10 seconds")),
        Effect.ignore,
        Effect.forkScoped
      )
      yield* Effect.addFinalizer(() =>
        Effect.promise(async () => {
          if ((await redis.get(key(nodeId))) === owner) await redis.del(key(nodeId))
        }).pipe(Effect.ignore)
      )
      return { nodeId, next: makeGenerator(nodeId) }
    })
  )
}
