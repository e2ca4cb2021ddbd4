import { Context, Effect, Layer, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../platform/Config.ts"
import { RedisClient } from "../platform/Redis.ts"
import { Intent, wants } from "./Intents.ts"
import { keepAlive, loggedRedisCall } from "./ProcessLiveness.ts"
import { GatewayRegistry } from "./Registry.ts"
import { encodeRouted, guildChannel } from "../../shards/Relay.ts"
import type { Dispatch } from "../model/Dispatch.ts"
import { decodeVoiceState, type VoiceState, voiceStateUpdate } from "./VoiceState.ts"

/**
 * Where a guild's voice states are kept and how their changes travel
 * (VoiceStates.ts decides the changes), as PresenceRoutes.ts does for presences.
 * Embedded: in this process's memory, told to its sessions. Cluster: a Redis
 * hash per guild, so any API process sees every member in voice (GUILD_CREATE,
 * user limits, moves by HTTP), and changes go out on the guild's relay channel.
 * A state is the session's: changes made for it elsewhere (a move by a
 * moderator) are made only while that session still holds it, and a process
 * that stops answering has its sessions' states removed (and told) by the
 * first process to notice, as with presences.
 */
export class VoiceRoutes extends Context.Service<VoiceRoutes, {
  readonly get: (guildId: string, userId: string) => Effect.Effect<VoiceState | undefined>
  readonly list: (guildId: string) => Effect.Effect<ReadonlyArray<VoiceState>>
  /** The user's state in its guild from now on, whichever session held one before. */
  readonly put: (state: VoiceState) => Effect.Effect<void>
  /** Replaces the user's state if the session `sessionId` still holds it; false when it is gone or another's. */
  readonly replace: (next: VoiceState, sessionId: string) => Effect.Effect<boolean>
  /** Removes the user's state if the session `sessionId` holds it; the state removed. */
  readonly remove: (guildId: string, userId: string, sessionId: string) => Effect.Effect<VoiceState | undefined>
  /** To the guild's sessions that asked for GUILD_VOICE_STATES, the user's own included. */
  readonly toGuild: (guildId: string, dispatch: Dispatch) => Effect.Effect<void>
}>()("guildhall/VoiceRoutes") {
  static readonly layerLocal = Layer.effect(
    VoiceRoutes,
    Effect.gen(function*() {
      const registry = yield* GatewayRegistry
      const guilds = new Map<string, Map<string, VoiceState>>()
      return VoiceRoutes.of({
        get: Effect.fn("VoiceRoutes.get")((guildId, userId) => Effect.sync(() => guilds.get(guildId)?.get(userId))),
        list: Effect.fn("VoiceRoutes.list")((guildId) => Effect.sync(() => [...(guilds.get(guildId)?.values() ?? [])])),
        put: Effect.fn("VoiceRoutes.put")((state) =>
          Effect.sync(() => {
            const users = guilds.get(state.guild_id) ?? new Map<string, VoiceState>()
            guilds.set(state.guild_id, users.set(state.user_id, state))
          })),
        replace: Effect.fn("VoiceRoutes.replace")((next, sessionId) =>
          Effect.sync(() => {
            const users = guilds.get(next.guild_id)
            if (users === undefined || users.get(next.user_id)?.session_id !== sessionId) return false
            users.set(next.user_id, next)
            return true
          })),
        remove: Effect.fn("VoiceRoutes.remove")((guildId, userId, sessionId) =>
          Effect.sync(() => {
            const users = guilds.get(guildId)
            const state = users?.get(userId)
            if (users === undefined || state === undefined || state.session_id !== sessionId) return undefined
            users.delete(userId)
            if (users.size === 0) guilds.delete(guildId)
            return state
          })),
        toGuild: Effect.fn("VoiceRoutes.toGuild")((guildId, dispatch) =>
          Effect.sync(() => {
            for (const session of registry.inGuild(guildId)) {
              if (wants(session.intents, Intent.GUILD_VOICE_STATES)) session.dispatch(dispatch)
            }
          }))
      })
    })
  )

  static readonly layerRedis = Layer.effect(
    VoiceRoutes,
    Effect.gen(function*() {
      const redis = yield* RedisClient
      const { redisKeyPrefix: prefix } = yield* AppConfig
      const processId = randomUUID()
      const processes = `${prefix}voice:processes`
      const entriesPrefix = `${prefix}voice:process:`
      const guildPrefix = `${prefix}voice:guild:`

      const redisCall = loggedRedisCall("gateway voice")

      const toGuild = Effect.fn("VoiceRoutes.toGuild")((guildId: string, dispatch: Dispatch) =>
        redisCall("not published", undefined, () =>
          redis.publish(guildChannel(prefix, guildId), encodeRouted({ guildId, dispatch, audience: { kind: "members" }, membership: undefined }))
            .then(() => undefined)))

      /** The states a stopped process's sessions held: removed, and told to their guilds by whoever removed them. */
      const takeOver = (id: string) =>
        Effect.gen(function*() {
          const reply = yield* redisCall("no take-over", [], () => redis.eval(TAKE_OVER, 2, processes, entriesPrefix + id, id, guildPrefix))
          const states = Option.getOrElse(decodeStrings(reply), () => []).flatMap((json) => Option.toArray(decodeVoiceState(json)))
          yield* Effect.forEach(
            states,
            (state) => toGuild(state.guild_id, { type: "VOICE_STATE_UPDATE", data: voiceStateUpdate(state, true) }),
            { discard: true }
          )
        })

      yield* keepAlive({ redis, processes, processId, takeOver, redisCall })
      // Stopping: this process's sessions are gone, and their states with them, told now rather than at the next sweep.
      yield* Effect.addFinalizer(() => takeOver(processId))

      const stateOf = (stored: string | null): VoiceState | undefined => {
        if (stored === null) return undefined
        return Option.getOrUndefined(decodeVoiceState(stored.slice(stored.indexOf("\n") + 1)))
      }

      return VoiceRoutes.of({
        get: Effect.fn("VoiceRoutes.get")((guildId, userId) =>
          redisCall("not read", undefined, () => redis.hget(guildPrefix + guildId, userId).then(stateOf))),
        list: Effect.fn("VoiceRoutes.list")((guildId) =>
          redisCall("not listed", [], () =>
            redis.hvals(guildPrefix + guildId).then((values) => values.flatMap((value) => stateOf(value) ?? [])))),
        put: Effect.fn("VoiceRoutes.put")((state) =>
          redisCall("not stored", undefined, () =>
            redis.eval(
              PUT,
              2,
              guildPrefix + state.guild_id,
              entriesPrefix + processId,
              state.user_id,
              processId,
              JSON.stringify(state),
              state.guild_id,
              entriesPrefix
            ).then(() => undefined))),
        replace: Effect.fn("VoiceRoutes.replace")((next, sessionId) =>
          redisCall("not replaced", false, () =>
            redis.eval(REPLACE, 1, guildPrefix + next.guild_id, next.user_id, sessionId, JSON.stringify(next)).then((reply) => reply === 1))),
        remove: Effect.fn("VoiceRoutes.remove")((guildId, userId, sessionId) =>
          redisCall("not removed", undefined, () =>
            redis.eval(REMOVE, 1, guildPrefix + guildId, userId, sessionId, guildId, entriesPrefix).then((reply) =>
              Option.match(decodeString(reply), { onNone: () => undefined, onSome: (json) => Option.getOrUndefined(decodeVoiceState(json)) })
            ))),
        toGuild
      })
    })
  )
}

const decodeStrings = Schema.decodeUnknownOption(Schema.Array(Schema.String))
const decodeString = Schema.decodeUnknownOption(Schema.String)

/*
 * Lua. A guild's hash maps user ids to "<process id>\n<state JSON>"; each process's
 * set lists "<guild id>:<user id>" of the states it put. Keys built from values
 * cannot be declared: fine on one Redis, not on Redis Cluster (as PresenceRoutes.ts).
 */

/** KEYS: the guild's hash, this process's set; ARGV: user id, process id, state JSON, guild id, set key prefix. */
const PUT = `
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then
  local owner = string.sub(old, 1, string.find(old, '\\n', 1, true) - 1)
  if owner ~= ARGV[2] then redis.call('SREM', ARGV[5] .. owner, ARGV[4] .. ':' .. ARGV[1]) end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '\\n' .. ARGV[3])
redis.call('SADD', KEYS[2], ARGV[4] .. ':' .. ARGV[1])
return 1
`

/** KEYS: the guild's hash; ARGV: user id, session id, new state JSON. The holder's process stays. */
const REPLACE = `
local old = redis.call('HGET', KEYS[1], ARGV[1])
if not old then return 0 end
local newline = string.find(old, '\\n', 1, true)
if cjson.decode(string.sub(old, newline + 1)).session_id ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], string.sub(old, 1, newline) .. ARGV[3])
return 1
`

/** KEYS: the guild's hash; ARGV: user id, session id, guild id, set key prefix. The state removed, or nil. */
const REMOVE = `
local old = redis.call('HGET', KEYS[1], ARGV[1])
if not old then return false end
local newline = string.find(old, '\\n', 1, true)
local json = string.sub(old, newline + 1)
if cjson.decode(json).session_id ~= ARGV[2] then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('SREM', ARGV[4] .. string.sub(old, 1, newline - 1), ARGV[3] .. ':' .. ARGV[1])
return json
`

/**
 * KEYS: the process heartbeats, the stopped process's set; ARGV: its id, the guild key prefix.
 * Only the caller whose ZREM removed the process takes it over; returns the states it removed.
 */
const TAKE_OVER = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return {} end
local gone = {}
for _, entry in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  local colon = string.find(entry, ':', 1, true)
  local key = ARGV[2] .. string.sub(entry, 1, colon - 1)
  local user = string.sub(entry, colon + 1)
  local old = redis.call('HGET', key, user)
  if old then
    local newline = string.find(old, '\\n', 1, true)
    if string.sub(old, 1, newline - 1) == ARGV[1] then
      redis.call('HDEL', key, user)
      table.insert(gone, string.sub(old, newline + 1))
    end
  end
end
redis.call('DEL', KEYS[2])
return gone
`
