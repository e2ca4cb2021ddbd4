import { Effect } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { setPinned } from "../guild/messages/ReactionRows.ts"
import { roomInGroupDms } from "./GroupDmLimit.ts"
import type { Call, DmState } from "./State.ts"

/** The statements of DM changes; each runs in its write's batch transaction (Repo.ts). */

const withSql = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, SqlError.SqlError>) =>
  Effect.asVoid(Effect.flatMap(SqlClient.SqlClient, f))

export const setOpen = (channelId: string, userIds: ReadonlyArray<string>, open: boolean) =>
  userIds.length === 0 ? Effect.void : withSql((sql) => sql`
    UPDATE dm_recipients SET is_open = ${open} WHERE channel_id = ${channelId} AND user_id IN ${sql.in(userIds)}`)

/** A new message is the channel's last; recipients who had closed it see it again. */
export const sent = (channelId: string, messageId: string, reopened: ReadonlyArray<string>) =>
  Effect.andThen(
    withSql((sql) => sql`UPDATE dm_channels SET last_message_id = ${messageId} WHERE channel_id = ${channelId}`),
    setOpen(channelId, reopened, true)
  )

export const updateGroup = (s: DmState) =>
  withSql((sql) =>
    Effect.andThen(
      sql`UPDATE channels SET name = ${s.name} WHERE id = ${s.id}`,
      sql`UPDATE dm_channels SET icon = ${s.icon}, owner_id = ${s.ownerId}, nicks = ${JSON.stringify(s.nicks)}::jsonb
          WHERE channel_id = ${s.id}`
    ))

/**
 * What a write that Postgres must refuse fails with: as a constraint violation, so its
 * batch answers it CONFLICT and commits nothing of it (actors/WriteBatches.ts).
 */
const refused = (message: string) => Effect.fail(new SqlError.SqlError({ reason: new SqlError.ConstraintError({ cause: message, message }) }))

/**
 * Adds the recipient if they still have room for one more group DM, checked again under
 * the lock `roomInGroupDms` holds until this transaction ends: the caller's check ran
 * before it, so two additions at once could both have seen the last place free.
 */
export const addRecipient = (channelId: string, userId: string) =>
  withSql((sql) =>
    Effect.flatMap(roomInGroupDms(sql, [userId]), (room) =>
      room
        ? sql`INSERT INTO dm_recipients (channel_id, user_id, is_open) VALUES (${channelId}, ${userId}, true)
            ON CONFLICT (channel_id, user_id) DO UPDATE SET is_open = true`
        : refused("the user is in as many group DMs as a user may be")))

/**
 * Pins or unpins a message. The caller counted the pins before the write; a pin of the
 * same batch may have taken the last place since, so the count is checked again here,
 * where the writes of the batch before it are visible.
 */
export const setPinnedWithin = (channelId: string, messageId: string, pinnedAt: string | null, maxPins: number) =>
  Effect.andThen(
    setPinned(channelId, messageId, pinnedAt),
    pinnedAt === null ? Effect.void : withSql((sql) =>
      Effect.flatMap(
        sql<{ n: number }>`SELECT count(*)::int AS n FROM messages WHERE channel_id = ${channelId} AND pinned`,
        ([row]) => ((row?.n ?? 0) > maxPins ? refused("the channel has as many pins as it may") : Effect.void)
      ))
  )

export const removeRecipient = (channelId: string, userId: string) =>
  withSql((sql) => sql`DELETE FROM dm_recipients WHERE channel_id = ${channelId} AND user_id = ${userId}`)

/** The last recipient left: the channel and its messages go. */
export const deleteChannel = (channelId: string) =>
  withSql((sql) => sql`DELETE FROM channels WHERE id = ${channelId} AND guild_id IS NULL`)

export const saveCall = (channelId: string, call: Call | undefined) =>
  withSql((sql) =>
    call === undefined
      ? sql`DELETE FROM dm_calls WHERE channel_id = ${channelId}`
      : sql`INSERT INTO dm_calls (channel_id, ringing, region)
            VALUES (${channelId}, ${`{${call.ringing.join(",")}}`}::bigint[], ${call.region})
            ON CONFLICT (channel_id) DO UPDATE SET ringing = EXCLUDED.ringing, region = EXCLUDED.region`)
