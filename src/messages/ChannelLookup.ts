import { Context, Effect, Layer } from "effect"
import { ChannelGuilds } from "../channels/ChannelGuilds.ts"
import { type NotFound, unknown } from "../model/Errors.ts"
import type { GuildId } from "../model/Ids.ts"

/** Channels remembered at most; past it the memory starts over (a miss costs one indexed query). */
const MAX_REMEMBERED = 100_000

/**
 * What a route does with a channel, by the actor that owns it: a guild
 * channel's guild actor, or a DM or group DM channel's own actor.
 */
export interface ByOwner<A, E, R, B, E2, R2> {
  readonly guild: (guildId: GuildId) => Effect.Effect<A, E, R>
  readonly dm: () => Effect.Effect<B, E2, R2>
}

/**
 * Where a channel lives, remembered after the first lookup: its guild, or
 * null for a DM channel. Message routes are the busiest ones and ask it on
 * every request, and a channel never moves. A channel deleted since is still
 * routed where it was, whose actor answers UNKNOWN_CHANNEL. An id not found
 * is not remembered: it may be a channel about to be made.
 *
 * The guild-or-DM question is answered here once (`byOwner`): routes say what
 * they do in each, not how to tell which.
 */
export class ChannelLookup extends Context.Service<ChannelLookup, {
  /** The channel's guild; 404 UNKNOWN_CHANNEL for a DM channel or no channel. */
  readonly guildOf: (channelId: string) => Effect.Effect<GuildId, NotFound>
  /** `guild` with the channel's guild, or `dm` for a DM channel; 404 UNKNOWN_CHANNEL when there is no such channel. */
  readonly byOwner: <A, E, R, B, E2, R2>(
    channelId: string,
    routes: ByOwner<A, E, R, B, E2, R2>
  ) => Effect.Effect<A | B, E | E2 | NotFound, R | R2>
}>()("guildhall/ChannelLookup") {
  static readonly layer = Layer.effect(
    ChannelLookup,
    Effect.gen(function*() {
      const channelGuilds = yield* ChannelGuilds
      const known = new Map<string, GuildId | null>()
      const remember = (channelId: string) => (guildId: GuildId | null) =>
        Effect.sync(() => {
          if (known.size >= MAX_REMEMBERED) known.clear()
          known.set(channelId, guildId)
        })
      // On every message request: unnamed, since Effect.fn's span and call-site capture (about 4 µs a call)
      // cost a tenth of a request here (npm run bench). The database lookup behind a miss is named.
      const ownerOf = (channelId: string) => {
        const guildId = known.get(channelId)
        return guildId === undefined ? Effect.tap(channelGuilds.guildOrDm(channelId), remember(channelId)) : Effect.succeed(guildId)
      }
      const byOwner = <A, E, R, B, E2, R2>(channelId: string, routes: ByOwner<A, E, R, B, E2, R2>) =>
        Effect.flatMap(ownerOf(channelId), (guildId): Effect.Effect<A | B, E | E2, R | R2> =>
          guildId === null ? routes.dm() : routes.guild(guildId))
      return ChannelLookup.of({
        guildOf: (channelId) =>
          Effect.flatMap(ownerOf(channelId), (guildId) => (guildId === null ? Effect.fail(unknown("CHANNEL")) : Effect.succeed(guildId))),
        byOwner
      })
    })
  ).pipe(Layer.provide(ChannelGuilds.layer))
}
