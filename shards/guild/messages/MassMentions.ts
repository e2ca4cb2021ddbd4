import type { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import { SNOWFLAKE_EPOCH } from "../../../src/platform/Snowflake.ts"

/** The lowest snowflake of the millisecond a member joined (`joinedAt`, a timestamptz): their messages start there. */
export const joinedSnowflake = (sql: SqlClient.SqlClient, joinedAt: Fragment): Fragment =>
  sql`(((extract(epoch FROM ${joinedAt}) * 1000)::bigint - ${sql.literal(String(SNOWFLAKE_EPOCH))}) << 22)`

/**
 * The role and @everyone/@here mentions of `userId` in one channel after the
 * message `after`, as a scalar subquery (an integer).
 *
 * Why on read: the direct mentions are counted into `read_states.mention_count`
 * as each message is stored (schema/0024), one row per user pinged; counting a
 * role or @everyone ping that way would write a row per member of the role or
 * the guild for every such message. So the stored count stays the direct
 * mentions, and these are added wherever a read state is read: a range of the
 * partial index messages_mass_mentions (channel, id), from the last message
 * read on, with one primary-key probe of the reader's membership per hit.
 *
 * A message counts when it pings everyone (its `mention_everyone` is only set
 * when the author was allowed to) or a role the reader has now; not when the
 * reader wrote it, was pinged by name in it (already counted), dismissed it
 * (DELETE /users/@me/mentions/{id}), or it predates their joining the guild.
 * DM channels have no guild member rows, so nothing here counts for them.
 */
export const unreadMassMentions = (sql: SqlClient.SqlClient, userId: string, channel: Fragment, after: Fragment): Fragment =>
  sql`(
    SELECT count(*)::int FROM messages m
    JOIN guild_members gm ON gm.guild_id = m.guild_id AND gm.user_id = ${userId}
    WHERE m.channel_id = ${channel} AND m.id > ${after}
      AND (m.mention_everyone OR m.mention_role_ids <> '{}')
      AND (m.mention_everyone OR m.mention_role_ids && gm.roles)
      AND m.id >= ${joinedSnowflake(sql, sql.literal("gm.joined_at"))}
      AND m.author_id <> ${userId}
      AND NOT (m.mention_user_ids <> '{}' AND m.mention_user_ids @> ARRAY[${userId}::bigint])
      AND NOT EXISTS (SELECT 1 FROM mention_dismissals d WHERE d.user_id = ${userId} AND d.message_id = m.id))`
