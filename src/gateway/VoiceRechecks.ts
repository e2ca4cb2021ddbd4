import { Effect, Equal, Option, Queue, Schema } from "effect"
import { recheckVoice } from "../../shards/guild/operations/Voice.ts"
import type { Actors } from "../guilds/Actors.ts"
import type { GuildMemberResponse } from "../model/Guilds.ts"
import type { RoutedEvent } from "../../shards/Relay.ts"
import type { VoiceRoutes } from "./VoiceRoutes.ts"
import { sameVoiceState, type VoiceState } from "./VoiceState.ts"
import { CarriedId } from "../model/Ids.ts"

/**
 * Those in voice lose their seat when they may no longer connect there (a
 * timeout, a role taken away, a role's or the channel's permissions changed),
 * and their state carries their member as it now is (nick, roles), as on the
 * reference platform. The trigger is the guild event that says so, seen by
 * every gateway process: each re-checks only the states its own sessions hold
 * (`held`), so a guild with nobody in voice here costs one map lookup.
 *
 * The guild's actor decides (operations/Voice.ts recheckVoice), all the seats
 * of a guild at once. Off the fan-out path: re-checks queue up and run in the
 * order of their events, a burst at a time (a role deleted updates each of its
 * holders: one actor read for them all).
 */

/** Whose seats a guild event asks to re-check: a member's, or those `pick` selects. */
type Recheck =
  | { readonly guildId: string; readonly userId: string }
  | { readonly guildId: string; readonly pick: (state: VoiceState) => boolean }

const decodeMemberUser = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Struct({ user: Schema.Struct({ id: Schema.String }) })))
const decodeRole = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Struct({ role: Schema.Struct({ id: Schema.String }) })))
const decodeChannel = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Struct({ id: Schema.String })))

/** What a guild event calls for, given `users` (user -> session) in voice there through this process. */
const recheckOf = (event: RoutedEvent, users: ReadonlyMap<string, string>): Recheck | undefined => {
  const { guildId, dispatch: { type, data } } = event
  switch (type) {
    case "GUILD_MEMBER_UPDATE": {
      const userId = Option.getOrUndefined(decodeMemberUser(data))?.user.id
      return userId !== undefined && users.has(userId) ? { guildId, userId } : undefined
    }
    case "GUILD_ROLE_UPDATE": {
      const roleId = Option.getOrUndefined(decodeRole(data))?.role.id
      // The states' members, roles included, follow GUILD_MEMBER_UPDATE: re-checked in order before this one.
      return roleId === undefined
        ? undefined
        : { guildId, pick: (s) => roleId === guildId || s.member.roles.includes(roleId) }
    }
    case "CHANNEL_UPDATE": {
      // A channel's permissions are its own overwrites (a category's are copied, not consulted).
      const channelId = Option.getOrUndefined(decodeChannel(data))?.id
      return channelId === undefined ? undefined : { guildId, pick: (s) => s.channel_id === channelId }
    }
    case "GUILD_UPDATE":
      // A new owner, or the actor reloaded from Postgres: anything may have changed.
      return { guildId, pick: () => true }
    default:
      return undefined
  }
}

export interface VoiceRechecksDeps {
  readonly actors: Actors["Service"]
  readonly routes: VoiceRoutes["Service"]
  /** user -> session of the states this process's sessions hold in a guild. */
  readonly held: (guildId: string) => ReadonlyMap<string, string> | undefined
  /** Ends the state `sessionId` holds, told to the guild. */
  readonly leave: (guildId: string, userId: string, sessionId: string) => Effect.Effect<void>
  readonly announce: (state: VoiceState) => Effect.Effect<void>
}

/** Starts the re-checks (in the layer's scope); what to call with each guild event this process delivers. */
export const makeVoiceRechecks = (deps: VoiceRechecksDeps) =>
  Effect.gen(function*() {
    const { actors, routes, held, leave, announce } = deps
    const queue = yield* Queue.unbounded<Recheck>()

    /** The seat as checked, now: the actor's verdict applied, unless it moved or ended meanwhile (that change was checked itself). */
    const settle = (seat: VoiceState, member: GuildMemberResponse | null) =>
      Effect.gen(function*() {
        if (member !== null && Equal.equals(member, seat.member) && member.mute === seat.mute && member.deaf === seat.deaf) return
        const current = yield* routes.get(seat.guild_id, seat.user_id)
        if (current === undefined || current.session_id !== seat.session_id || current.channel_id !== seat.channel_id) return
        if (member === null) return yield* leave(seat.guild_id, seat.user_id, seat.session_id)
        const next = { ...current, mute: member.mute, deaf: member.deaf, member }
        // A new nick or roles alone are not announced: the next VOICE_STATE_UPDATE carries them.
        if ((yield* routes.replace(next, current.session_id)) && !sameVoiceState(current, next)) yield* announce(next)
      })

    const recheckGuild = (guildId: string, asked: ReadonlyArray<Recheck>) =>
      Effect.gen(function*() {
        const users = held(guildId)
        if (users === undefined) return
        const userIds = new Set(asked.flatMap((r) => "userId" in r ? [r.userId] : []))
        const picks = asked.flatMap((r) => "pick" in r ? [r.pick] : [])
        const candidates = picks.length === 0
          ? yield* Effect.forEach([...userIds], (userId) => routes.get(guildId, userId))
          : yield* routes.list(guildId)
        const seats = candidates.filter((s): s is VoiceState =>
          s !== undefined && users.get(s.user_id) === s.session_id && (userIds.has(s.user_id) || picks.some((pick) => pick(s)))
        )
        if (seats.length === 0) return
        // The guild of a routed event: one our actors published.
        const verdicts = yield* actors.read(
          CarriedId.GuildId.make(guildId),
          recheckVoice,
          { seats: seats.map((s) => ({ userId: s.user_id, channelId: s.channel_id })), now: Date.now() },
          "0"
        )
        yield* Effect.forEach(seats, (seat, i) => {
          const verdict = verdicts[i]
          return verdict === undefined ? Effect.void : settle(seat, verdict)
        }, { discard: true })
      }).pipe(Effect.catchCause((cause) => Effect.logWarning("gateway voice: seats not re-checked", cause)))

    const burst = (rechecks: ReadonlyArray<Recheck>) => {
      const byGuild = new Map<string, Array<Recheck>>()
      for (const r of rechecks) {
        const asked = byGuild.get(r.guildId)
        if (asked === undefined) byGuild.set(r.guildId, [r])
        else asked.push(r)
      }
      return Effect.forEach(byGuild, ([guildId, asked]) => recheckGuild(guildId, asked), { discard: true })
    }
    yield* Queue.takeAll(queue).pipe(Effect.flatMap(burst), Effect.forever, Effect.forkScoped)

    return (event: RoutedEvent): void => {
      const users = held(event.guildId)
      const recheck = users === undefined ? undefined : recheckOf(event, users)
      if (recheck !== undefined) Queue.offerUnsafe(queue, recheck)
    }
  })
