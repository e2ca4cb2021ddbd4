import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/**
 * What Postgres knows of vanity codes beyond the guild actor's state: which
 * guild holds a code (codes are unique across guilds) and how often a code was
 * used to join (guild_vanity_url_uses; the join counts it).
 */
export class VanityUrls extends Context.Service<VanityUrls, {
  readonly holder: (code: string) => Effect.Effect<string | undefined>
  readonly uses: (guildId: string) => Effect.Effect<number>
}>()("guildhall/VanityUrls") {
  static readonly layer = Layer.effect(
    VanityUrls,
    Effect.map(SqlClient.SqlClient, (sql) =>
      VanityUrls.of({
        holder: Effect.fn("VanityUrls.holder")((code) =>
          sql<{ id: string }>`SELECT id::text AS id FROM guilds WHERE vanity_url_code = ${code}`.pipe(
            Effect.map((rows) => rows[0]?.id),
            Effect.orDie
          )),
        uses: Effect.fn("VanityUrls.uses")((guildId) =>
          sql<{ uses: number }>`SELECT uses FROM guild_vanity_url_uses WHERE guild_id = ${guildId}`.pipe(
            Effect.map((rows) => rows[0]?.uses ?? 0),
            Effect.orDie
          ))
      }))
  )
}
