import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { type NotFound, unknown } from "../http/Errors.ts"

/**
 * `/channels/{id}` routes do not name the guild: the guild of a channel, from
 * the channels table (the guild actor writes it in the transaction that
 * creates the channel, so a channel it announced is always found here).
 */
export class ChannelGuilds extends Context.Service<ChannelGuilds, {
  /** The guild holding `channelId`, else 404 UNKNOWN_CHANNEL (DM channels have no guild). */
  readonly guildOf: (channelId: string) => Effect.Effect<string, NotFound>
}>()("guildhall/ChannelGuilds") {
  static readonly layer = Layer.effect(
    ChannelGuilds,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return ChannelGuilds.of({
        guildOf: (channelId) =>
          sql<{ guild_id: string | null }>`SELECT guild_id::text AS guild_id FROM channels WHERE id = ${channelId}`.pipe(
            Effect.orDie,
            Effect.flatMap(([row]) =>
              row?.guild_id == null ? Effect.fail(unknown("CHANNEL")) : Effect.succeed(row.guild_id))
          )
      })
    })
  )
}
