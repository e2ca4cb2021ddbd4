import { Context, Effect, Layer, PubSub } from "effect"
import type { GuildEvent } from "./Operations.ts"

/** A committed change of a guild, as the gateway dispatches it. */
export interface PublishedEvent extends GuildEvent {
  readonly guildId: string
}

/**
 * The events of committed guild writes in this process, for the real-time
 * gateway to fan out. Published after the commit, so nobody hears of a change
 * that did not happen; nothing is kept for subscribers that are not there.
 */
export class GuildEvents extends Context.Service<GuildEvents, {
  readonly publish: (guildId: string, events: ReadonlyArray<GuildEvent>) => Effect.Effect<void>
  readonly pubsub: PubSub.PubSub<PublishedEvent>
}>()("guildhall/GuildEvents") {
  static readonly layer = Layer.effect(
    GuildEvents,
    Effect.map(PubSub.unbounded<PublishedEvent>(), (pubsub) =>
      GuildEvents.of({
        pubsub,
        publish: (guildId, events) =>
          events.length === 0 ? Effect.void : Effect.asVoid(PubSub.publishAll(pubsub, events.map((e) => ({ guildId, ...e }))))
      }))
  )
}
