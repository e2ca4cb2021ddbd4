import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { type NotFound, unknown } from "../model/Errors.ts"
import type { GuildId } from "../model/Ids.ts"

/**
 * `/channels/{id}` routes do not name the guild: the guild of a channel, from
 * the channels table (the guild actor writes it in the transaction that
 * creates the channel, so a channel it announced is always found here).
 */
export class ChannelGuilds extends Context.Service<ChannelGuilds, {
  /** The guild holding `channelId`, null for a DM channel, else 404 UNKNOWN_CHANNEL. */
  readonly guildOrDm: (channelId: string) => Effect.Effect<GuildId | null, NotFound>
}>()("guildhall/ChannelGuilds") {
  static readonly layer = Layer.effect(
    ChannelGuilds,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const lookup = (channelId: string) =>
        sql<{ guild_id: GuildId | null }>`SELECT guild_id::text AS guild_id FROM channels WHERE id = ${channelId}`.pipe(
          Effect.orDie,
          Effect.flatMap(([row]) => (row === undefined ? Effect.fail(unknown("CHANNEL")) : Effect.succeed(row.guild_id)))
        )
      return ChannelGuilds.of({
        guildOrDm: Effect.fn("ChannelGuilds.guildOrDm")(lookup)
      })
    })
  )
}
