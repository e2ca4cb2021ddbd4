import { Context, Effect, Layer } from "effect"
import { ChannelGuilds } from "../channels/ChannelGuilds.ts"
import { type NotFound, unknown } from "../model/Errors.ts"
import type { GuildId } from "../model/Ids.ts"

/** Channels remembered at most; past it the memory starts over (a miss costs one indexed query). */
const MAX_REMEMBERED = 100_000

/**
 * Where a channel lives, remembered after the first lookup: its guild, or
 * null for a DM channel. Message routes are the busiest ones and ask it on
 * every request, and a channel never moves. One memory serves both questions
 * (which guild; whether a DM). A channel deleted since is still routed where
 * it was, whose actor answers UNKNOWN_CHANNEL. An id not found is not
 * remembered: it may be a channel about to be made.
 */
export class ChannelLookup extends Context.Service<ChannelLookup, {
  /** The channel's guild, null for a DM channel; 404 UNKNOWN_CHANNEL when there is no such channel. */
  readonly guildOrDm: (channelId: string) => Effect.Effect<GuildId | null, NotFound>
  /** The channel's guild; 404 UNKNOWN_CHANNEL for a DM channel or no channel. */
  readonly guildOf: (channelId: string) => Effect.Effect<GuildId, NotFound>
  /** Whether the channel is a DM or group DM; false for guild channels and unknown ids. */
  readonly isDm: (channelId: string) => Effect.Effect<boolean>
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
      const guildOrDm = (channelId: string) => {
        const guildId = known.get(channelId)
        return guildId === undefined ? Effect.tap(channelGuilds.guildOrDm(channelId), remember(channelId)) : Effect.succeed(guildId)
      }
      return ChannelLookup.of({
        guildOrDm,
        guildOf: (channelId) =>
          Effect.flatMap(guildOrDm(channelId), (guildId) => (guildId === null ? Effect.fail(unknown("CHANNEL")) : Effect.succeed(guildId))),
        isDm: (channelId) =>
          guildOrDm(channelId).pipe(
            Effect.map((guildId) => guildId === null),
            Effect.orElseSucceed(() => false)
          )
      })
    })
  ).pipe(Layer.provide(ChannelGuilds.layer))
}
