import { NOT_HELD } from "../../actors/LegalHolds.ts"
import { Effect, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { MessageResponse } from "../../../src/model/Messages.ts"
import { writeRows } from "../../actors/BatchStatements.ts"
import { type ChannelMessages, MessageWindow, WINDOW_SIZE, type WindowEntry } from "./MessageWindow.ts"
import type { RowSink, RowWrite, SqlValue } from "../Definitions.ts"
import { rowsTable } from "../../actors/RowColumns.ts"
import { SharedMap } from "../SharedMap.ts"
import { decodeMessageRows, MESSAGE_COLUMN_NAMES, MESSAGE_COLUMNS, renderRows } from "./StoredMessages.ts"

const encodeMessage = Schema.encodeSync(MessageResponse)

/** What the window keeps of a message: its JSON, rendered once, and what decisions look at. */
export const entryOf = (message: MessageResponse): WindowEntry => ({
  id: BigInt(message.id),
  authorId: message.author.id,
  nonce: message.nonce ?? null,
  sentAt: Date.parse(message.timestamp),
  json: JSON.stringify(encodeMessage(message))
})

/** Snowflake ids as a Postgres bigint[] literal (digits only, so nothing to escape). */
export const idArray = (ids: ReadonlyArray<string>) => `{${ids.join(",")}}`

/** A new message's row, in the column order of `messageInserts`. */
const messageValues = (guildId: string | null, m: MessageResponse): ReadonlyArray<SqlValue> => {
  const ref = m.message_reference
  return [
    m.channel_id, m.id, guildId, m.author.id, m.type, m.flags, m.content, m.tts, m.mention_everyone,
    idArray(m.mentions.map((u) => u.id)), idArray(m.mention_roles), JSON.stringify(m.embeds),
    JSON.stringify(m.attachments), JSON.stringify(m.stickers ?? []), ref?.channel_id ?? null,
    ref?.message_id ?? null, ref?.guild_id ?? null, ref?.type ?? null,
    m.message_snapshots === undefined ? null : JSON.stringify(m.message_snapshots), m.nonce ?? null, m.timestamp,
    m.webhook_id ?? null, m.webhook_id === undefined ? null : m.author.username,
    m.webhook_id === undefined ? null : m.author.avatar
  ]
}

/**
 * New messages as a batch writes them: one INSERT of many rows, so a burst of
 * sends to a guild costs one statement per batch, not one per message.
 */
const INSERTED_COLUMNS = [
  "channel_id", "id", "guild_id", "author_id", "type", "flags", "content", "tts", "mention_everyone", "mention_user_ids",
  "mention_role_ids", "embeds", "attachments", "stickers", "reference_channel_id", "reference_message_id",
  "reference_guild_id", "reference_type", "snapshots", "nonce", "created_at", "webhook_id", "webhook_name", "webhook_avatar"
]

export const messageInserts: RowSink = {
  name: "messages",
  statements: (sql, _guildId, rows) => [
    sql`
        INSERT INTO messages (channel_id, id, guild_id, author_id, type, flags, content, tts, mention_everyone,
          mention_user_ids, mention_role_ids, embeds, attachments, stickers, reference_channel_id, reference_message_id,
          reference_guild_id, reference_type, snapshots, nonce, created_at, webhook_id, webhook_name, webhook_avatar)
        SELECT channel_id::bigint, id::bigint, guild_id::bigint, author_id::bigint, type::integer, flags::integer, content,
          tts::boolean, mention_everyone::boolean, mention_user_ids::bigint[], mention_role_ids::bigint[], embeds::jsonb,
          attachments::jsonb, stickers::jsonb, reference_channel_id::bigint, reference_message_id::bigint,
          reference_guild_id::bigint, reference_type::integer, snapshots::jsonb, nonce, created_at::timestamptz,
          webhook_id::bigint, webhook_name, webhook_avatar
        FROM ${rowsTable(sql, rows, INSERTED_COLUMNS)}`
  ]
}

/** A new message of the guild's channel (guild null: a DM), for `messageInserts`. */
export const messageRow = (guildId: string | null, m: MessageResponse): RowWrite => ({
  sink: messageInserts,
  key: m.id,
  values: messageValues(guildId, m)
})

/** Stores a new message at once (outside a batch). */
export const insertMessage = (guildId: string | null, m: MessageResponse) =>
  writeRows(messageInserts, guildId ?? "", [messageValues(guildId, m)])

/**
 * Writes what an edit may change. Only these columns: an edit of a message
 * older than the window was decided from a copy read before it, so columns it
 * did not touch keep what a concurrent write stored.
 */
export const updateMessage = (m: MessageResponse) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.asVoid(sql`
      UPDATE messages SET content = ${m.content}, flags = ${m.flags}, mention_everyone = ${m.mention_everyone},
        mention_user_ids = ${idArray(m.mentions.map((u) => u.id))}::bigint[],
        mention_role_ids = ${idArray(m.mention_roles)}::bigint[], embeds = ${JSON.stringify(m.embeds)}::jsonb,
        attachments = ${JSON.stringify(m.attachments)}::jsonb, edited_at = ${m.edited_timestamp}::timestamptz
      WHERE channel_id = ${m.channel_id} AND id = ${m.id}`))

export const deleteMessages = (channelId: string, ids: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.asVoid(sql`DELETE FROM messages WHERE channel_id = ${channelId} AND id IN ${sql.in(ids)} AND ${sql.literal(NOT_HELD)}`))

/**
 * Each channel's newest WINDOW_SIZE messages, for GuildRepo.load: one index
 * range scan per channel (the primary key, read backwards).
 */
export const loadChannelMessages = (
  guildId: string
): Effect.Effect<SharedMap<string, ChannelMessages>, SqlError.SqlError | Schema.SchemaError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* decodeMessageRows(yield* sql`
      SELECT ${sql.literal(MESSAGE_COLUMNS)} FROM channels c
      CROSS JOIN LATERAL (
        SELECT ${sql.literal(MESSAGE_COLUMN_NAMES.join(", "))} FROM messages
        WHERE channel_id = c.id ORDER BY id DESC LIMIT ${WINDOW_SIZE}
      ) m
      WHERE c.guild_id = ${guildId}`)
    const messages = yield* renderRows(rows)
    const byChannel = new Map<string, Array<WindowEntry>>()
    for (const message of messages) {
      const entries = byChannel.get(message.channel_id) ?? []
      entries.push(entryOf(message))
      byChannel.set(message.channel_id, entries)
    }
    return SharedMap.from([...byChannel].map(([channelId, entries]): [string, ChannelMessages] => {
      const oldestFirst = entries.sort((a, b) => (a.id < b.id ? -1 : 1))
      const oldest = oldestFirst[0]
      const newest = oldestFirst[oldestFirst.length - 1]
      const lastSent = new Map<string, number>()
      for (const e of oldestFirst) lastSent.set(e.authorId, e.sentAt)
      return [channelId, {
        lastId: newest?.id ?? 0n,
        window: MessageWindow.of(oldestFirst),
        coveredFrom: oldestFirst.length < WINDOW_SIZE || oldest === undefined ? 0n : oldest.id,
        lastSent: SharedMap.from(lastSent)
      }]
    }))
  })
