import { Effect, Layer, Option, Schema } from "effect"
import { admission } from "../../shards/guild/Audience.ts"
import * as Reads from "../../shards/guild/Reads.ts"
import { Actors } from "../guilds/Actors.ts"
import { EventFeed, type FeedEvent } from "./Feed.ts"
import { GatewayRegistry } from "./Registry.ts"
import type { Dispatch, GatewaySession } from "./Session.ts"

/** GUILD_CREATE of the guild as `userId` sees it, or nothing when it cannot be read now. */
export const guildCreate = (actors: Actors["Service"], guildId: string, userId: string) =>
  actors.readGuild(guildId, Reads.view(userId), (guild) => guild.View({ userId })).pipe(
    Effect.map((data): ReadonlyArray<Dispatch> => [{ type: "GUILD_CREATE", data }]),
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

  const toGuild = ({ event }: FeedEvent) => {
    const admits = admission(event.audience)
    // The member leaving hears GUILD_DELETE instead, below.
    const leaving = event.membership?.joined === false ? event.membership.userId : undefined
    const sessions = [...registry.inGuild(event.guildId)]
    for (const session of sessions) {
      if (session.userId !== leaving && admits(session.userId)) session.dispatch(event.dispatch)
    }
    return isRemoval(event.dispatch)
      ? Effect.forEach(sessions, (s) => registry.leave(s, event.guildId), { discard: true })
      : Effect.void
  }

  // The guild's view is read off the delivery path; the session holds its later dispatches until then.
  const joined = (session: GatewaySession, guildId: string) =>
    Effect.suspend(() => {
      session.hold()
      return Effect.andThen(registry.join(session, guildId), guildCreate(actors, guildId, session.userId)).pipe(
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
      if (membership.joined) return member ? Effect.void : joined(session, event.guildId)
      if (!member) return Effect.void
      session.dispatch({ type: "GUILD_DELETE", data: JSON.stringify({ id: event.guildId }) })
      return registry.leave(session, event.guildId)
    }, { discard: true })
  }

  const deliver = (item: FeedEvent) =>
    Effect.andThen(item.forGuild ? toGuild(item) : Effect.void, item.forMember ? toMember(item) : Effect.void).pipe(
      Effect.catchCause((cause) => Effect.logWarning("gateway: an event was not delivered", cause))
    )

  yield* feed.next.pipe(
    Effect.flatMap((batch) => Effect.forEach(batch, deliver, { discard: true })),
    Effect.forever,
    Effect.forkScoped
  )
}))
