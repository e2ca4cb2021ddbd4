import { Context, Effect, Layer, Option, Queue, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../platform/Config.ts"
import { RedisClient } from "../platform/Redis.ts"
import { Intent, wants } from "./Intents.ts"
import { keepAlive, loggedRedisCall } from "./ProcessLiveness.ts"
import { GatewayRegistry } from "./Registry.ts"
import { encodeRouted, guildChannel } from "../../shards/Relay.ts"
import type { Dispatch } from "../model/Dispatch.ts"

/** One guild's PRESENCE_UPDATE of a user. */
export interface GuildPresence {
  readonly guildId: string
  readonly dispatch: Dispatch
}

/**
 * Where a user's presence changes go and whether they are connected anywhere
 * (Presence.ts decides what changed). Embedded: this process's sessions are
 * all there is. Cluster: guild presences travel on the guild relay channels
 * the API processes already listen to (one Redis message per guild and
 * change), and each process records in Redis which users it holds sessions
 * of, with a heartbeat, so a user goes offline when their last session
 * anywhere closes, or when the process holding it stops answering.
 */
export class PresenceRoutes extends Context.Service<PresenceRoutes, {
  /** To each guild's sessions that asked for GUILD_PRESENCES, but the user's own. */
  readonly toGuilds: (userId: string, presences: ReadonlyArray<GuildPresence>) => Effect.Effect<void>
  /** The user has a session on this process. */
  readonly connected: (userId: string) => Effect.Effect<void>
  /** The user's last session on this process closed; true when no process holds one any more. */
  readonly disconnected: (userId: string) => Effect.Effect<boolean>
  /** Waits for users whose every session was on a process that stopped: offline now. */
  readonly abandoned: Effect.Effect<ReadonlyArray<string>>
}>()("guildhall/PresenceRoutes") {
  static readonly layerLocal = Layer.effect(
    PresenceRoutes,
    Effect.gen(function*() {
      const registry = yield* GatewayRegistry
      return PresenceRoutes.of({
        toGuilds: Effect.fn("PresenceRoutes.toGuilds")((userId, presences) =>
          Effect.sync(() => {
            for (const { guildId, dispatch } of presences) {
              for (const session of registry.inGuild(guildId)) {
                if (session.userId !== userId && wants(session.intents, Intent.GUILD_PRESENCES)) session.dispatch(dispatch)
              }
            }
          })),
        connected: () => Effect.void,
        disconnected: () => Effect.succeed(true),
        abandoned: Effect.never
      })
    })
  )

  static readonly layerRedis = Layer.effect(
    PresenceRoutes,
    Effect.gen(function*() {
      const redis = yield* RedisClient
      const { redisKeyPrefix: prefix } = yield* AppConfig
      const processId = randomUUID()
      const processes = `${prefix}presence:processes`
      const usersOf = (id: string) => `${prefix}presence:process:${id}`
      const userKeys = `${prefix}presence:user:`
      const abandoned = yield* Queue.unbounded<string>()

      const redisCall = loggedRedisCall("gateway presences")

      const takeOver = (dead: string) =>
        Effect.map(
          redisCall("no take-over", [], () => redis.eval(TAKE_OVER, 2, processes, usersOf(dead), dead, Date.now(), userKeys)),
          (reply) => {
            for (const userId of Option.getOrElse(decodeIds(reply), () => [])) Queue.offerUnsafe(abandoned, userId)
          }
        )
      yield* keepAlive({ redis, processes, processId, takeOver, redisCall })

      return PresenceRoutes.of({
        toGuilds: Effect.fn("PresenceRoutes.toGuilds")((userId, presences) =>
          presences.length === 0 ? Effect.void : redisCall("not published", undefined, () => {
            const pipeline = redis.pipeline()
            for (const { guildId, dispatch } of presences) {
              const message = encodeRouted({ guildId, dispatch, audience: { kind: "except", users: [userId] }, membership: undefined })
              pipeline.publish(guildChannel(prefix, guildId), message)
            }
            return pipeline.exec().then(() => undefined)
          })),
        connected: Effect.fn("PresenceRoutes.connected")((userId) =>
          redisCall("not recorded", undefined, () =>
            redis.multi().sadd(`${userKeys}${userId}`, processId).sadd(usersOf(processId), userId).exec().then(() => undefined))),
        disconnected: Effect.fn("PresenceRoutes.disconnected")((userId) =>
          redisCall("not recorded", true, () =>
            redis.eval(DISCONNECT, 3, `${userKeys}${userId}`, usersOf(processId), processes, processId, userId, Date.now())
              .then((reply) => reply === 1))),
        // No span on the take: a loop waits on it for as long as the process runs.
        abandoned: Queue.takeAll(abandoned)
      })
    })
  )
}


const decodeIds = Schema.decodeUnknownOption(Schema.Array(Schema.String))

/** Whether any process still alive (score in the future) is in the user's set KEYS[1] (Lua). */
const ANY_ALIVE = `
local function anyAlive(userKey, processes, now)
  for _, id in ipairs(redis.call('SMEMBERS', userKey)) do
    local until_ = redis.call('ZSCORE', processes, id)
    if until_ and tonumber(until_) > now then return true end
  end
  return false
end
`

/** KEYS: the user's processes, this process's users, the process heartbeats; ARGV: process id, user id, now. 1 when gone everywhere. */
const DISCONNECT = `${ANY_ALIVE}
redis.call('SREM', KEYS[1], ARGV[1])
redis.call('SREM', KEYS[2], ARGV[2])
if anyAlive(KEYS[1], KEYS[3], tonumber(ARGV[3])) then return 0 end
return 1
`

/**
 * KEYS: the process heartbeats, the dead process's users; ARGV: its id, now, the user key prefix.
 * Only the sweeper whose ZREM removed the process takes it over; returns its users now connected nowhere.
 * User keys come from the set, so they cannot be declared: fine on one Redis, not on Redis Cluster.
 */
const TAKE_OVER = `${ANY_ALIVE}
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return {} end
local gone = {}
for _, user in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  local key = ARGV[3] .. user
  redis.call('SREM', key, ARGV[1])
  if not anyAlive(key, KEYS[1], tonumber(ARGV[2])) then table.insert(gone, user) end
end
redis.call('DEL', KEYS[2])
return gone
`
