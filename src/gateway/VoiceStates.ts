import { Context, Effect, Layer, Option, Schema } from "effect"
import { joinVoice } from "../../shards/guild/operations/Voice.ts"
import { Actors } from "../guilds/Actors.ts"
import { GuildMemberResponse } from "../model/Guilds.ts"
import type { ChannelId, GuildId } from "../model/Ids.ts"
import { Close } from "./Protocol.ts"
import { GatewayRegistry } from "./Registry.ts"
import type { RoutedEvent } from "../../shards/Relay.ts"
import type { Closing, GatewaySession } from "./Session.ts"
import { makeVoiceRechecks } from "./VoiceRechecks.ts"
import { VoiceRoutes } from "./VoiceRoutes.ts"
import { VoiceCatalog } from "../platform/VoiceCatalog.ts"
import { joinToken, pickServer } from "./VoiceServers.ts"
import type { VoiceAccessReply } from "../../shards/guild/operations/Voice.ts"
import {
  decodeVoiceStateRequest,
  sameVoiceState,
  type VoiceState,
  voiceStateEntry,
  type VoiceStateRequest,
  voiceStateUpdate
} from "./VoiceState.ts"

const invalid: Closing = { code: Close.DECODE_ERROR, reason: "Invalid VOICE_STATE_UPDATE" }

const decodeMember = Schema.decodeUnknownOption(Schema.fromJsonString(GuildMemberResponse))
/** The `id` of a deleted channel or guild, and whether a guild is only unavailable. */
const decodeDeleted = Schema.decodeUnknownOption(
  Schema.fromJsonString(Schema.Struct({ id: Schema.String, unavailable: Schema.optional(Schema.Boolean) }))
)

/**
 * Voice states at the signalling level (media go through the configured media
 * servers, VoiceServers.ts, each joining session told which): who is in
 * which voice channel of a guild, with their mute and deafen, kept where the
 * sessions are (VoiceRoutes.ts) and never written to Postgres. A session joins,
 * moves and leaves with op 4, checked by the guild (operations/Voice.ts); a
 * refused op 4 changes nothing. A state ends with its session, with the member's
 * membership, with its channel and with its guild, and when the member may no
 * longer connect there (VoiceRechecks.ts). Every change goes to the guild's
 * sessions as VOICE_STATE_UPDATE.
 */
export class VoiceStates extends Context.Service<VoiceStates, {
  /** Op 4 of `session`; a malformed one ends the connection, as op 3's does. */
  readonly update: (session: GatewaySession, data: unknown) => Effect.Effect<Closing | undefined>
  /** The user's state in the guild, when they are in voice there. */
  readonly get: (guildId: string, userId: string) => Effect.Effect<VoiceState | undefined>
  /** GUILD_CREATE's `voice_states` (JSON each). */
  readonly inGuild: (guildId: string) => Effect.Effect<ReadonlyArray<string>>
  /**
   * A member update committed: its move (`channelId`, null to disconnect) and the
   * member's server mute and deafen (`memberJson`, the updated member) reach their state.
   */
  readonly memberPatched: (guildId: string, userId: string, channelId: string | null | undefined, memberJson: string) => Effect.Effect<void>
  /**
   * A guild event this process delivers: a member who left, a deleted channel or guild take their states along;
   * a member, role, channel or guild updated has the states it may concern re-checked (VoiceRechecks.ts).
   */
  readonly observe: (event: RoutedEvent) => Effect.Effect<void>
}>()("guildhall/VoiceStates") {
  static readonly layer = Layer.effect(
    VoiceStates,
    Effect.gen(function*() {
      const registry = yield* GatewayRegistry
      const actors = yield* Actors
      const routes = yield* VoiceRoutes
      const catalog = yield* VoiceCatalog
      // The states this process's sessions hold, guild -> user -> session id: what their closing and the guild's events act on.
      const held = new Map<string, Map<string, string>>()
      const hold = (state: VoiceState) => {
        const users = held.get(state.guild_id) ?? new Map<string, string>()
        held.set(state.guild_id, users.set(state.user_id, state.session_id))
      }
      const unhold = (guildId: string, userId: string, sessionId: string) => {
        const users = held.get(guildId)
        if (users === undefined || users.get(userId) !== sessionId) return
        users.delete(userId)
        if (users.size === 0) held.delete(guildId)
      }

      const announce = (state: VoiceState, left = false) =>
        routes.toGuild(state.guild_id, { type: "VOICE_STATE_UPDATE", data: voiceStateUpdate(state, left) })

      /** The state `sessionId` holds there ends (a state another session took since stays). */
      const leave = (guildId: string, userId: string, sessionId: string) =>
        Effect.suspend(() => {
          unhold(guildId, userId, sessionId)
          return Effect.flatMap(routes.remove(guildId, userId, sessionId), (gone) => gone === undefined ? Effect.void : announce(gone, true))
        })

      /** The session holds `next` from now on (the state another session held is replaced). */
      const take = (before: VoiceState | undefined, next: VoiceState) =>
        Effect.andThen(routes.put(next), () => {
          if (before !== undefined) unhold(before.guild_id, before.user_id, before.session_id)
          hold(next)
          return announce(next)
        })

      /**
       * The joining session is told where its media go: VOICE_SERVER_UPDATE with a
       * configured server's endpoint and a join token for the room. With no server
       * that fits, the same event with a null endpoint (and no token): as on the
       * reference platform, the client then waits for a server instead of connecting.
       */
      const tellServer = (session: GatewaySession, guildId: string, channelId: string, access: typeof VoiceAccessReply.Type) =>
        Effect.gen(function*() {
          const caller = { guildId, guildFeatures: access.guildFeatures, userId: session.userId }
          const server = yield* pickServer(catalog, access.rtcRegion, caller)
          const { user } = access.member
          const grant = {
            guildId,
            channelId,
            userId: session.userId,
            name: user.global_name ?? user.username,
            speak: access.speak,
            stream: access.stream
          }
          const data = server === undefined
            ? { token: "", guild_id: guildId, endpoint: null }
            : { token: yield* joinToken(server, grant, Date.now()), guild_id: guildId, endpoint: server.endpoint }
          session.dispatch({ type: "VOICE_SERVER_UPDATE", data: JSON.stringify(data) })
        })

      const recheck = yield* makeVoiceRechecks({ actors, routes, held: (guildId) => held.get(guildId), leave, announce })

      const join = (session: GatewaySession, guildId: GuildId, channelId: ChannelId, request: VoiceStateRequest, before: VoiceState | undefined) =>
        Effect.gen(function*() {
          const access = yield* actors.read(guildId, joinVoice, { channelId, now: Date.now() }, session.userId).pipe(Effect.option)
          if (Option.isNone(access)) return
          const { member, userLimit, bypassesLimit } = access.value
          if (userLimit > 0 && !bypassesLimit) {
            const inside = (yield* routes.list(guildId)).filter((s) => s.channel_id === channelId && s.user_id !== session.userId)
            if (inside.length >= userLimit) return
          }
          yield* take(before, {
            guild_id: guildId,
            channel_id: channelId,
            user_id: session.userId,
            session_id: session.id,
            mute: member.mute,
            deaf: member.deaf,
            self_mute: request.self_mute ?? false,
            self_deaf: request.self_deaf ?? false,
            member
          })
          // After the state, as the reference platform orders them.
          yield* tellServer(session, guildId, channelId, access.value)
        })

      const change = (session: GatewaySession, guildId: GuildId, request: VoiceStateRequest) =>
        Effect.gen(function*() {
          const before = yield* routes.get(guildId, session.userId)
          // Any session of the user may take them out of voice.
          if (request.channel_id === null) {
            return before === undefined ? undefined : yield* leave(guildId, before.user_id, before.session_id)
          }
          // Another session taking the user's place joins anew: it is checked, and told its media server.
          if (before === undefined || before.channel_id !== request.channel_id || before.session_id !== session.id) {
            return yield* join(session, guildId, request.channel_id, request, before)
          }
          // The same channel and session: the client's own mute and deafen.
          const next = { ...before, self_mute: request.self_mute ?? false, self_deaf: request.self_deaf ?? false }
          if (!sameVoiceState(before, next)) yield* take(before, next)
        })

      registry.onClose((session) =>
        held.size === 0 ? Effect.void : Effect.forEach(
          [...session.guilds],
          (guildId) => held.get(guildId)?.get(session.userId) === session.id ? leave(guildId, session.userId, session.id) : Effect.void,
          { discard: true }
        ))

      const memberPatched = Effect.fn("VoiceStates.memberPatched")(function*(
        guildId: string,
        userId: string,
        channelId: string | null | undefined,
        memberJson: string
      ) {
        const before = yield* routes.get(guildId, userId)
        if (before === undefined) return
        if (channelId === null) return yield* leave(guildId, userId, before.session_id)
        const member = Option.getOrElse(decodeMember(memberJson), () => before.member)
        const next = { ...before, channel_id: channelId ?? before.channel_id, mute: member.mute, deaf: member.deaf, member }
        // Made only while the same session holds the state: one that left meanwhile is not brought back.
        if (!sameVoiceState(before, next) && (yield* routes.replace(next, before.session_id))) yield* announce(next)
      })

      /** The states held here in a deleted channel end. */
      const channelDeleted = (guildId: string, users: ReadonlyMap<string, string>, channelId: string) =>
        Effect.forEach([...users], ([userId, sessionId]) =>
          Effect.flatMap(routes.get(guildId, userId), (state) =>
            state !== undefined && state.channel_id === channelId ? leave(guildId, userId, sessionId) : Effect.void), { discard: true })

      // Unnamed: the fan-out calls it for every event it delivers, and most stop at the first lookup.
      const observe = (event: RoutedEvent): Effect.Effect<void> => {
        // Most events, and every guild nobody here is in voice in, stop at this lookup.
        const users = held.get(event.guildId)
        if (users === undefined) return Effect.void
        const { type, data } = event.dispatch
        recheck(event)
        if (type === "GUILD_MEMBER_REMOVE") {
          const userId = event.membership?.userId
          const sessionId = userId === undefined ? undefined : users.get(userId)
          return userId === undefined || sessionId === undefined ? Effect.void : leave(event.guildId, userId, sessionId)
        }
        if (type !== "CHANNEL_DELETE" && type !== "GUILD_DELETE") return Effect.void
        const deleted = decodeDeleted(data)
        if (Option.isNone(deleted)) return Effect.void
        if (type === "CHANNEL_DELETE") return channelDeleted(event.guildId, users, deleted.value.id)
        // A guild only unavailable (its actor stopping) comes back with its voice as it was.
        if (deleted.value.unavailable === true) return Effect.void
        return Effect.forEach([...users], ([userId, sessionId]) => leave(event.guildId, userId, sessionId), { discard: true })
      }

      return VoiceStates.of({
        update: Effect.fn("VoiceStates.update")(function*(session, data) {
          const decoded = decodeVoiceStateRequest(data)
          if (Option.isNone(decoded)) return invalid
          const guildId = decoded.value.guild_id
          // A DM call's voice, or a guild the session is not in: nothing to change.
          if (guildId === null || !session.guilds.has(guildId)) return undefined
          yield* change(session, guildId, decoded.value)
          return undefined
        }),
        // VoiceRoutes.get's own span names it.
        get: routes.get,
        inGuild: Effect.fn("VoiceStates.inGuild")((guildId) => Effect.map(routes.list(guildId), (states) => states.map(voiceStateEntry))),
        memberPatched,
        observe
      })
    })
  )
}
