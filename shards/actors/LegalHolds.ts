import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Those of the messages `ids` under a legal hold (schema/0034_legal_holds.sql):
 * every deletion path asks before it deletes, and keeps these.
 */
export const heldAmong = (ids: ReadonlyArray<string>): Effect.Effect<ReadonlySet<string>, never, SqlClient.SqlClient> =>
  ids.length === 0
    ? Effect.succeed(new Set<string>())
    : Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ message_id: string }>`
        SELECT DISTINCT message_id::text AS message_id FROM legal_hold_messages WHERE message_id IN ${sql.in(ids)}`.pipe(
        Effect.map((rows) => new Set(rows.map((row) => row.message_id))),
        Effect.orDie
      ))

/** A condition for a `DELETE FROM messages` (alias `m` not needed): the row is under no hold. */
export const NOT_HELD = "NOT EXISTS (SELECT 1 FROM legal_hold_messages h WHERE h.message_id = messages.id)"

/**
 * Whether a message of the guild or channel is under a legal hold: deleting
 * either deletes its messages with it (the foreign keys cascade), so it waits
 * for the hold's release.
 */
export const holdsMessagesIn = (scope: { readonly guildId: string } | { readonly channelId: string }): Effect.Effect<boolean, never, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT 1 FROM legal_hold_messages h JOIN messages m ON m.id = h.message_id
        WHERE ${"guildId" in scope ? sql`m.guild_id = ${scope.guildId}` : sql`m.channel_id = ${scope.channelId}`} LIMIT 1`.pipe(
      Effect.map((rows) => rows.length > 0),
      Effect.orDie
    ))
