import { Context, Effect, Layer, PubSub } from "effect"
import type { GuildId } from "../../src/model/Ids.ts"
import { exportedSpan, type TraceContext } from "../../src/platform/Tracing.ts"
import type { GuildEvent } from "./Definitions.ts"
import type { GuildState } from "./State.ts"
import { viewFor } from "./Views.ts"

/** A committed change of a guild, as the gateway dispatches it. */
export interface PublishedEvent extends GuildEvent {
  readonly guildId: GuildId
  /** Where in its trace the change was committed, when spans are exported: the gateway's dispatch continues it. */
  readonly trace?: TraceContext | undefined
  /**
   * The guild as the change left it: who may see the event is decided with it. Not the
   * actor's state when the event is routed: by then the actor may have stopped (its shard
   * moved, an operator shut it down), and an event routed without a guild reaches nobody.
   */
  readonly state: GuildState | undefined
}

/**
 * The events of committed guild writes in this process, for the real-time
 * gateway to fan out. Published after the commit, so nobody hears of a change
 * that did not happen; nothing is kept for subscribers that are not there.
 */
export class GuildEvents extends Context.Service<GuildEvents, {
  readonly publish: (guildId: GuildId, events: ReadonlyArray<GuildEvent>, state: GuildState | undefined) => Effect.Effect<void>
  readonly pubsub: PubSub.PubSub<PublishedEvent>
}>()("guildhall/GuildEvents") {
  static readonly layer = Layer.effect(
    GuildEvents,
    Effect.map(PubSub.unbounded<PublishedEvent>(), (pubsub) =>
      GuildEvents.of({
        pubsub,
        publish: (guildId, events, state) =>
          events.length === 0 ? Effect.void : Effect.withFiber((fiber) => {
            const span = exportedSpan(fiber)
            const trace = span === undefined ? undefined : { traceId: span.traceId, spanId: span.spanId }
            return Effect.asVoid(PubSub.publishAll(pubsub, events.map((e) => ({ guildId, trace, state, ...e }))))
          })
      }))
  )
}

/**
 * What connected sessions hear when the actor reloads its state: the guild
 * as it now is (GUILD_UPDATE); after a shutdown, the guild is back
 * (GUILD_CREATE with its id: each gateway reads each member's own view).
 */
export const reloadEvents = (before: GuildState | undefined, after: GuildState | undefined): ReadonlyArray<GuildEvent> => {
  if (after === undefined) return []
  if (before === undefined) return [{ type: "GUILD_CREATE", data: { id: after.guild.id } }]
  return [{ type: "GUILD_UPDATE", data: viewFor(after, after.guild.owner_id) }]
}

/** The actor stopped: its guild is unavailable to sessions until it starts again (not a removal). */
export const shutdownEvents = (guildId: string): ReadonlyArray<GuildEvent> => [
  { type: "GUILD_DELETE", data: { id: guildId, unavailable: true } }
]
