import { Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
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

export const addRecipient = (channelId: string, userId: string) =>
  withSql((sql) => sql`INSERT INTO dm_recipients (channel_id, user_id, is_open) VALUES (${channelId}, ${userId}, true)
    ON CONFLICT (channel_id, user_id) DO UPDATE SET is_open = true`)

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
