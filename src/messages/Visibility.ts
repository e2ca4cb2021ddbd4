import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { readableChannels, type ReadableChannels } from "../../shards/guild/operations/MessageVisibility.ts"
import { Actors } from "../guilds/Actors.ts"
import { type BadRequest, Forbidden, NotFound, type Unavailable } from "../model/Errors.ts"
import type { GuildId } from "../model/Ids.ts"

/** The guild actors asked at once when one query spans all of a user's guilds. */
const CONCURRENT_GUILDS = 16

export interface ReadableGuild extends ReadableChannels {
  readonly guildId: string
}

/**
 * What a user may read across guilds, for queries over Postgres that span
 * channels (search, mentions, saved messages): each guild's actor says which
 * of its channels the user may read (MessageVisibility.ts), and the query is
 * then limited to those channel ids. Permissions are never re-derived from
 * rows here: the actors' state is the one source of them.
 */
export class MessageVisibility extends Context.Service<MessageVisibility, {
  /** The readable channels of each of the user's guilds (only of `guildIds` when given); guilds the user left meanwhile are skipped. */
  readonly readable: (userId: string, guildIds?: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ReadableGuild>, BadRequest | Unavailable>
}>()("guildhall/MessageVisibility") {
  static readonly layer = Layer.effect(
    MessageVisibility,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const actors = yield* Actors

      const guildsOf = (userId: string, only: ReadonlyArray<string> | undefined) =>
        Effect.map(
          only === undefined
            ? sql<{ guild_id: GuildId }>`SELECT guild_id::text AS guild_id FROM guild_members WHERE user_id = ${userId}`
            : only.length === 0
            ? Effect.succeed([])
            : sql<{ guild_id: GuildId }>`SELECT guild_id::text AS guild_id FROM guild_members
                                        WHERE user_id = ${userId} AND guild_id IN ${sql.in(only)}`,
          (rows) => rows.map((r) => r.guild_id)
        ).pipe(Effect.orDie)

      const readable = Effect.fn("MessageVisibility.readable")((userId: string, guildIds?: ReadonlyArray<string>) =>
        Effect.flatMap(guildsOf(userId, guildIds), (guilds) =>
          Effect.forEach(guilds, (guildId) =>
            actors.read(guildId, readableChannels, {}, userId).pipe(
              Effect.map((r): ReadonlyArray<ReadableGuild> => [{ guildId, ...r }]),
              // Left or gone between the membership query and the read.
              Effect.catchIf((e) => e instanceof Forbidden || e instanceof NotFound, () => Effect.succeed([]))
            ), { concurrency: CONCURRENT_GUILDS }).pipe(Effect.map((lists) => lists.flat()))))

      return MessageVisibility.of({ readable })
    })
  )
}
