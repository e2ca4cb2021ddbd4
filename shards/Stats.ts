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
  calls: Schema.Int,
  /** Resident set size: everything the process holds. */
  memory: Schema.Int,
  /** Of it, the JavaScript heap in use: where actors' state and sessions live. */
  heap_used: Schema.Int,
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

/** A guild's audience in the gateway: the sessions in it and, of their users, those who show as online. */
export interface GuildAudience {
  readonly sessions: number
  readonly presences: number
}
const AudienceJson = Schema.fromJsonString(Schema.Tuple([Schema.Int, Schema.Int]))
const encodeAudience = Schema.encodeSync(AudienceJson)
const decodeAudience = Schema.decodeUnknownEffect(AudienceJson)

/** This process's share of each guild's audience, for every guild it holds a session in (or only `guildIds`). */
const audiencesOf = (live: LiveActors["Service"], guildIds?: ReadonlySet<string>): Map<string, GuildAudience> => {
  const found = new Map<string, { sessions: number; online: Set<string> }>()
  for (const session of live.sessions.values()) {
    for (const guildId of session.guilds) {
      if (guildIds !== undefined && !guildIds.has(guildId)) continue
      let entry = found.get(guildId)
      if (entry === undefined) found.set(guildId, entry = { sessions: 0, online: new Set() })
      entry.sessions++
      if (live.presences.has(session.userId)) entry.online.add(session.userId)
    }
  }
  return new Map([...found].map(([id, { online, sessions }]) => [id, { sessions, presences: online.size }]))
}

const addAudience = (into: Map<string, GuildAudience>, guildId: string, audience: GuildAudience) => {
  const before = into.get(guildId)
  into.set(guildId, before === undefined ? audience : {
    sessions: before.sessions + audience.sessions,
    presences: before.presences + audience.presences
  })
}
const HEAVIEST = 100
const PUBLISH_EVERY = "2 seconds"
const EXPIRES_MS = 10_000

const snapshotOf = (processId: string, role: string, live: LiveActors["Service"]): ProcessSnapshot => {
  const { heapUsed, rss } = process.memoryUsage()
  return {
    process_id: processId,
    role,
    host: hostname(),
    pid: process.pid,
    guilds: live.guilds.size,
    users: live.users.size,
    sessions: live.sessions.size,
    presences: live.presences.size,
    calls: live.calls.size,
    memory: rss,
    heap_used: heapUsed,
    uptime_seconds: Math.floor(process.uptime()),
    heaviest: [...live.guilds.entries()]
      .sort(([, a], [, b]) => b.memory - a.memory)
      .slice(0, HEAVIEST)
      .map(([id, g]) => ({ guild_id: id, guild_name: g.name, guild_icon: g.icon, memory: g.memory, member_count: g.memberCount }))
  }
}

/** The processes' figures as far as they could be read: `complete` is false when only this process's own are known. */
export interface ClusterView {
  readonly processes: ReadonlyArray<ProcessSnapshot>
  readonly complete: boolean
}

/**
 * How long a reader waits on Redis before it answers with what this process
 * knows of itself: ioredis keeps a command while it reconnects, and an
 * operator polling stats during an outage must not wait on it.
 */
const REDIS_READ_TIMEOUT = "1500 millis"

/**
 * Every live process's figures. Each process speaks only for itself: in
 * cluster mode it republishes to Redis with a short expiry, so a process that
 * dies drops out of the sum within seconds.
 */
export class ClusterStats extends Context.Service<ClusterStats, {
  /** Every process's figures; only this process's own, and `complete: false`, while Redis cannot be read. */
  readonly all: Effect.Effect<ClusterView>
  /**
   * The gateway audience of each listed guild that has one, summed over the
   * processes (a user connected to two API processes counts in each).
   */
  readonly audiences: (guildIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, GuildAudience>>
}>()("guildhall/ClusterStats") {
  static readonly layerLocal = (role: string) =>
    Layer.effect(
      ClusterStats,
      Effect.map(LiveActors, (live) => {
        const processId = randomUUID()
        return {
          all: Effect.sync(() => ({ processes: [snapshotOf(processId, role, live)], complete: true })).pipe(
            Effect.withSpan("ClusterStats.all")
          ),
          audiences: (guildIds) => Effect.sync(() => audiencesOf(live, new Set(guildIds)))
        }
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
        // Per guild, the process's share of its audience, as a hash: a reader fetches only the guilds it lists.
        const audienceKey = (id: string) => `${redisKeyPrefix}stats:${id}:audiences`
        const processId = randomUUID()
        if (publish) {
          // tryPromise: a Redis that is away fails the write (ignored, tried again next time); a
          // rejected promise would be a defect, which ends the repeating fiber for good.
          const write = Effect.tryPromise(() => {
            const audiences = [...audiencesOf(live)].flatMap(([guildId, a]) => [guildId, encodeAudience([a.sessions, a.presences])])
            const batch = redis.multi()
              .set(key(processId), JSON.stringify(snapshotOf(processId, role, live)), "PX", EXPIRES_MS)
              .del(audienceKey(processId))
            if (audiences.length > 0) batch.hset(audienceKey(processId), ...audiences).pexpire(audienceKey(processId), EXPIRES_MS)
            return batch.zadd(index, Date.now() + EXPIRES_MS, processId).exec()
          })
          yield* write.pipe(Effect.ignore, Effect.repeat(Schedule.spaced(PUBLISH_EVERY)), Effect.forkScoped)
          yield* Effect.addFinalizer(() =>
            Effect.tryPromise(() => redis.multi().del(key(processId), audienceKey(processId)).zrem(index, processId).exec()).pipe(Effect.ignore)
          )
        }
        // A read Redis does not answer in time fails, and the reader falls back on this process alone.
        const read = <A>(command: () => Promise<A>) => Effect.tryPromise(command).pipe(Effect.timeout(REDIS_READ_TIMEOUT))
        const liveIds = Effect.gen(function*() {
          yield* read(() => redis.zremrangebyscore(index, "-inf", Date.now()))
          return yield* read(() => redis.zrange(index, 0, -1))
        })
        const published = Effect.gen(function*() {
          const ids = yield* liveIds
          if (ids.length === 0) return []
          const values = yield* read(() => redis.mget(ids.map(key)))
          const snapshots: Array<ProcessSnapshot> = []
          for (const value of values) {
            if (value === null) continue
            const snapshot = yield* decodeSnapshot(value).pipe(Effect.option)
            if (snapshot._tag === "Some") snapshots.push(snapshot.value)
          }
          return snapshots
        })
        const all = published.pipe(
          Effect.map((processes): ClusterView => ({ processes, complete: true })),
          Effect.orElseSucceed((): ClusterView => ({ processes: [snapshotOf(processId, role, live)], complete: false })),
          Effect.withSpan("ClusterStats.all")
        )
        const summedAudiences = Effect.fnUntraced(function*(guildIds: ReadonlyArray<string>) {
          const summed = new Map<string, GuildAudience>()
          const ids = yield* liveIds
          const shares = yield* Effect.forEach(ids, (id) => read(() => redis.hmget(audienceKey(id), ...guildIds)), {
            concurrency: "unbounded"
          })
          for (const share of shares) {
            for (const [i, guildId] of guildIds.entries()) {
              const value = share[i]
              if (value === undefined || value === null) continue
              const decoded = yield* decodeAudience(value).pipe(Effect.option)
              if (decoded._tag === "Some") addAudience(summed, guildId, { sessions: decoded.value[0], presences: decoded.value[1] })
            }
          }
          return summed
        })
        const audiences = (guildIds: ReadonlyArray<string>) =>
          guildIds.length === 0 ? Effect.succeed(new Map<string, GuildAudience>()) : summedAudiences(guildIds).pipe(
            Effect.orElseSucceed(() => audiencesOf(live, new Set(guildIds))),
            Effect.withSpan("ClusterStats.audiences")
          )
        return { all, audiences }
      })
    )
}
