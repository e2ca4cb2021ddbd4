import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { NOT_HELD } from "./LegalHolds.ts"

/**
 * Deletes the channel's messages among `ids`, keeping any under a legal hold:
 * the caller left held ones out already, this guards against a hold placed
 * since it looked (operators' deletes, guild and DM alike).
 */
export const deleteUnheldMessages = (channelId: string, ids: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    ids.length === 0
      ? Effect.void
      : Effect.asVoid(sql`DELETE FROM messages WHERE channel_id = ${channelId} AND id IN ${sql.in(ids)}
          AND ${sql.literal(NOT_HELD)}`))

/** Deletes the author's messages of the guild among `ids`, keeping any under a legal hold (as above). */
export const deleteUnheldAuthorMessages = (guildId: string, authorId: string, ids: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    ids.length === 0
      ? Effect.void
      : Effect.asVoid(sql`DELETE FROM messages WHERE author_id = ${authorId} AND guild_id = ${guildId}
          AND id IN ${sql.in(ids)} AND ${sql.literal(NOT_HELD)}`))
