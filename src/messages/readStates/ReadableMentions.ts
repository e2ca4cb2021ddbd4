import type { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import { idArray } from "../../../shards/guild/messages/MessageRows.ts"
import { joinedSnowflake, unreadMassMentions } from "../../../shards/guild/messages/MassMentions.ts"
import type { ReadableGuild } from "../Visibility.ts"

/**
 * The unread role and @everyone mentions of `userId` in the channels they may
 * read now, as rows (channel_id, mentions) of a derived table: the channels
 * with any. The only place such mentions are counted for read states.
 *
 * Which channels: `readable` (MessageVisibility, from the guild actors), so a
 * channel the member cannot view or read the history of counts nothing, even
 * with a read_states row left from when they could (a role taken away, an
 * overwrite added); the permissions are never re-derived from rows here.
 * From when: after the last message read (the channel's read_states row) or,
 * never opened, from the member's joining; never before the joining either
 * (a row stored by a direct mention starts at 0). `greatest` skips a missing row.
 *
 * One statement for all of them: the channels come in as two arrays, and each
 * costs one descent of the partial index messages_mass_mentions (channel_id, id)
 * from that start on (an index condition, as it is a value of the outer row)
 * and a visit per mass mention found; the read_states and guild_members probes
 * are primary-key lookups. Those keys are the whole plan, so no index is added for it.
 */
export const readableMassMentions = (sql: SqlClient.SqlClient, userId: string, readable: ReadonlyArray<ReadableGuild>): Fragment => {
  const channels = readable.flatMap((g) => g.channels.map((c) => ({ channelId: c.id, guildId: g.guildId })))
  const start = sql`greatest(rs.last_message_id, ${joinedSnowflake(sql, sql.literal("j.joined_at"))} - 1)`
  // OFFSET 0 keeps the planner from pulling `mentions > 0` into the inner query,
  // which would copy the count there and run it twice for each channel kept.
  return sql`
    SELECT * FROM (
      SELECT v.channel_id, ${unreadMassMentions(sql, userId, sql.literal("v.channel_id"), start)} AS mentions
      FROM unnest(${idArray(channels.map((c) => c.channelId))}::bigint[], ${idArray(channels.map((c) => c.guildId))}::bigint[])
        AS v(channel_id, guild_id)
      JOIN guild_members j ON j.guild_id = v.guild_id AND j.user_id = ${userId}
      LEFT JOIN read_states rs ON rs.user_id = ${userId} AND rs.channel_id = v.channel_id
      OFFSET 0) counted
    WHERE mentions > 0`
}
