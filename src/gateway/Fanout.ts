import { Effect, Layer, Option, Schema } from "effect"
import { admission } from "../../shards/guild/Audience.ts"
import { gatewayGuildCreate } from "../../shards/guild/operations/GatewayGuild.ts"
import { Actors } from "../guilds/Actors.ts"
import { EventFeed, type FeedEvent } from "./Feed.ts"
import { Intent, intentOfGuildEvent, wants } from "./Intents.ts"
import { Presences } from "./Presence.ts"
import { GatewayRegistry } from "./Registry.ts"
import type { Dispatch } from "../model/Dispatch.ts"
import type { GatewaySession } from "./Session.ts"
import { VoiceStates } from "./VoiceStates.ts"
import { continueTrace } from "../platform/Tracing.ts"
import { CarriedId, type GuildId } from "../model/Ids.ts"

/** GUILD_CREATE's `voice_states`, for a session that asked for GUILD_VOICE_STATES. */
const voiceStatesFor = (voices: VoiceStates["Service"], guildId: string, session: GatewaySession) =>
  wants(session.intents, Intent.GUILD_VOICE_STATES) ? voices.inGuild(guildId) : Effect.succeed(undefined)

/**
 * GUILD_CREATE of the guild as the session's user sees it (with their own
 * member, emojis and stickers: Views.ts, `renderGuildCreate`), with the members
 * who show as online when the session asked for GUILD_PRESENCES and those in
 * voice when it asked for GUILD_VOICE_STATES; nothing when the guild cannot be read now.
 */
export const guildCreate = (
  actors: Actors["Service"],
  presences: Presences["Service"],
  voices: VoiceStates["Service"],
  guildId: GuildId,
  session: GatewaySession
) =>
  actors.read(guildId, gatewayGuildCreate, { largeThreshold: session.largeThreshold }, session.userId).pipe(
    Effect.flatMap((view) =>
      Effect.map(voiceStatesFor(voices, guildId, session), (voice): ReadonlyArray<Dispatch> => {
        const online = wants(session.intents, Intent.GUILD_PRESENCES) ? presences.inGuild(guildId, session.userId) : []
        // The view is JSON already (shared by every member who sees the same): the presences and voice states are spliced in.
        const parts = [
          ...(online.length === 0 ? [] : [`"presences":[${online.join(",")}]`]),
          ...(voice === undefined ? [] : [`"voice_states":[${voice.join(",")}]`])
        ]
        const data = parts.length === 0 ? view : `${view.slice(0, -1)},${parts.join(",")}}`
        return [{ type: "GUILD_CREATE", data }]
      })),
    Effect.orElseSucceed((): ReadonlyArray<Dispatch> => [])
  )

const decodeDeletion = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Struct({ unavailable: Schema.optional(Schema.Boolean) })))

/** The guild is gone for good (an outage says `unavailable: true`, and the guild comes back). */
const isRemoval = ({ type, data }: Dispatch) =>
  type === "GUILD_DELETE" && Option.match(decodeDeletion(data), { onNone: () => true, onSome: (d) => d.unavailable !== true })

/**
 * Delivers the feed's events to this process's sessions: each event of a
 * guild to the sessions of its members that may see it (Audience.ts), in the
 * order the feed gives them. A member who joins gets the guild (GUILD_CREATE)
 * and its events from then on; one who leaves gets GUILD_DELETE and no more.
 */
export const FanoutLive = Layer.effectDiscard(Effect.gen(function*() {
  const feed = yield* EventFeed
  const registry = yield* GatewayRegistry
  const actors = yield* Actors
  const presences = yield* Presences
  const voices = yield* VoiceStates

  const toGuild = ({ event }: FeedEvent) => {
    const admits = admission(event.audience)
    // The actor started again after a shutdown: every session gets the guild as its user sees it.
    if (event.dispatch.type === "GUILD_CREATE") {
      const back = [...registry.inGuild(event.guildId)].filter((s) => admits(s.userId))
      return Effect.forEach(back, (session) => sendGuild(session, event.guildId, Effect.void), { discard: true })
    }
    // The member leaving hears GUILD_DELETE instead, below.
    const leaving = event.membership?.joined === false ? event.membership.userId : undefined
    const needed = intentOfGuildEvent(event.dispatch.type)
    const sessions = [...registry.inGuild(event.guildId)]
    for (const session of sessions) {
      if (session.userId !== leaving && admits(session.userId) && wants(session.intents, needed)) session.dispatch(event.dispatch)
    }
    return isRemoval(event.dispatch)
      ? Effect.forEach(sessions, (s) => registry.leave(s, event.guildId), { discard: true })
      : Effect.void
  }

  // The guild's view is read off the delivery path; the session holds its later dispatches until then.
  const sendGuild = (session: GatewaySession, guildId: string, first: Effect.Effect<void>) =>
    Effect.suspend(() => {
      session.hold()
      // A routed event's guild id is one our actors published.
      return Effect.andThen(first, guildCreate(actors, presences, voices, CarriedId.GuildId.make(guildId), session)).pipe(
        Effect.onExit((exit) => Effect.sync(() => session.release(exit._tag === "Success" ? exit.value : []))),
        Effect.forkDetach,
        Effect.asVoid
      )
    })

  const toMember = ({ event }: FeedEvent) => {
    const membership = event.membership
    if (membership === undefined) return Effect.void
    const sessions = [...registry.ofUser(membership.userId)]
    return Effect.forEach(sessions, (session) => {
      const member = session.guilds.has(event.guildId)
      if (membership.joined) return member ? Effect.void : sendGuild(session, event.guildId, registry.join(session, event.guildId))
      if (!member) return Effect.void
      session.dispatch({ type: "GUILD_DELETE", data: JSON.stringify({ id: event.guildId }) })
      return registry.leave(session, event.guildId)
    }, { discard: true })
  }

  // In the trace of the write that made the event, when its process exports spans (Relay.ts).
  const deliver = (item: FeedEvent) =>
    continueTrace(
      Effect.andThen(item.forGuild ? toGuild(item) : Effect.void, item.forMember ? toMember(item) : Effect.void).pipe(
        // Voice states the event ends (a member gone, a channel deleted) end once the event is out.
        Effect.andThen(voices.observe(item.event)),
        Effect.catchCause((cause) => Effect.logWarning("gateway: an event was not delivered", cause))
      ),
      "gateway.dispatch",
      item.event.trace,
      { "gateway.event": item.event.dispatch.type, "guild.id": item.event.guildId }
    )

  yield* feed.next.pipe(
    Effect.flatMap((batch) => Effect.forEach(batch, deliver, { discard: true })),
    Effect.forever,
    Effect.forkScoped
  )
}))
