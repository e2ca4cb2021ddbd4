import { Context, Effect, Layer, Schedule, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import { AppConfig } from "../src/platform/Config.ts"
import { RedisClient } from "../src/platform/Redis.ts"
import { LiveActors } from "./LiveActors.ts"

/** One process's own figures, as published for `/admin/gateway/stats`. */
export const ProcessSnapshot = Schema.Struct({
  process_id: Schema.String,
  role: Schema.String,
  host: Schema.String,
  pid: Schema.Int,
  guilds: Schema.Int,
  users: Schema.Int,
  sessions: Schema.Int,
  presences: Schema.Int,
  memory: Schema.Int,
  uptime_seconds: Schema.Int,
  heaviest: Schema.Array(Schema.Struct({
    guild_id: Schema.String,
    guild_name: Schema.String,
    guild_icon: Schema.NullOr(Schema.String),
    memory: Schema.Int,
    member_count: Schema.Int
  }))
})
export type ProcessSnapshot = typeof ProcessSnapshot.Type

const decodeSnapshot = Schema.decodeUnknownEffect(Schema.fromJsonString(ProcessSnapshot))
const HEAVIEST = 100
const PUBLISH_EVERY = "2 seconds"
const EXPIRES_MS = 10_000

const snapshotOf = (processId: string, role: string, live: LiveActors["Service"]): ProcessSnapshot => ({
  process_id: processId,
  role,
  host: hostname(),
  pid: process.pid,
  guilds: live.guilds.size,
  users: live.users.size,
  sessions: live.sessions.size,
  presences: live.presences.size,
  memory: process.memoryUsage().rss,
  uptime_seconds: Math.floor(process.uptime()),
  heaviest: [...live.guilds.entries()]
    .sort(([, a], [, b]) => b.memory - a.memory)
    .slice(0, HEAVIEST)
    .map(([id, g]) => ({ guild_id: id, guild_name: g.name, guild_icon: g.icon, memory: g.memory, member_count: g.memberCount }))
})

/**
 * Every live process's figures. Each process speaks only for itself: in
 * cluster mode it republishes to Redis with a short expiry, so a process that
 * dies drops out of the sum within seconds.
 */
export class ClusterStats extends Context.Service<ClusterStats, {
  readonly all: Effect.Effect<ReadonlyArray<ProcessSnapshot>>
}>()("guildhall/ClusterStats") {
  static readonly layerLocal = (role: string) =>
    Layer.effect(
      ClusterStats,
      Effect.map(LiveActors, (live) => {
        const processId = randomUUID()
        return { all: Effect.sync(() => [snapshotOf(processId, role, live)]).pipe(Effect.withSpan("ClusterStats.all")) }
      })
    )

  /** Reads every process's figures from Redis; API processes read, runners also publish. */
  static readonly layerRedis = (role: string, publish: boolean) =>
    Layer.effect(
      ClusterStats,
      Effect.gen(function*() {
        const redis = yield* RedisClient
        const live = yield* LiveActors
        const { redisKeyPrefix } = yield* AppConfig
        // An index scored by expiry time names the live processes without scanning the keyspace.
        const index = `${redisKeyPrefix}stats`
        const key = (id: string) => `${redisKeyPrefix}stats:${id}`
        const processId = randomUUID()
        if (publish) {
          const write = Effect.promise(() =>
            redis.multi()
              .set(key(processId), JSON.stringify(snapshotOf(processId, role, live)), "PX", EXPIRES_MS)
              .zadd(index, Date.now() + EXPIRES_MS, processId)
              .exec()
          )
          yield* write.pipe(Effect.ignore, Effect.repeat(Schedule.spaced(PUBLISH_EVERY)), Effect.forkScoped)
          yield* Effect.addFinalizer(() =>
            Effect.promise(() => redis.multi().del(key(processId)).zrem(index, processId).exec()).pipe(Effect.ignore)
          )
        }
        const all = Effect.gen(function*() {
          yield* Effect.promise(() => redis.zremrangebyscore(index, "-inf", Date.now()))
          const ids = yield* Effect.promise(() => redis.zrange(index, 0, -1))
          if (ids.length === 0) return []
          const values = yield* Effect.promise(() => redis.mget(ids.map(key)))
          const snapshots: Array<ProcessSnapshot> = []
          for (const value of values) {
            if (value === null) continue
            const snapshot = yield* decodeSnapshot(value).pipe(Effect.option)
            if (snapshot._tag === "Some") snapshots.push(snapshot.value)
          }
          return snapshots
        }).pipe(Effect.withSpan("ClusterStats.all"))
        return { all }
      })
    )
}
