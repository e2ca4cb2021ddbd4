import { Context, Effect, Layer } from "effect"
import { ChannelGuilds } from "../channels/ChannelGuilds.ts"
import type { NotFound } from "../http/Errors.ts"

/** Channels remembered at most; past it the memory starts over (a miss costs one indexed query). */
const MAX_REMEMBERED = 100_000

/**
 * The guild of a channel, remembered after the first lookup: message routes
 * are the busiest ones, and a channel never moves to another guild. A
 * channel deleted since is still routed to its guild, whose actor answers
 * UNKNOWN_CHANNEL.
 */
export class ChannelLookup extends Context.Service<ChannelLookup, {
  readonly guildOf: (channelId: string) => Effect.Effect<string, NotFound>
}>()("guildhall/ChannelLookup") {
  static readonly layer = Layer.effect(
    ChannelLookup,
    Effect.gen(function*() {
      const channelGuilds = yield* ChannelGuilds
      const known = new Map<string, string>()
      const remember = (channelId: string) => (guildId: string) =>
        Effect.sync(() => {
          if (known.size >= MAX_REMEMBERED) known.clear()
          known.set(channelId, guildId)
        })
      return ChannelLookup.of({
        guildOf: (channelId) => {
          const guildId = known.get(channelId)
          return guildId === undefined ? Effect.tap(channelGuilds.guildOf(channelId), remember(channelId)) : Effect.succeed(guildId)
        }
      })
    })
  ).pipe(Layer.provide(ChannelGuilds.layer))
}
