import { Effect, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { isoTimestamp, isoTimestampOrNull } from "../../../src/platform/Timestamps.ts"
import {
  MessageAttachmentResponse,
  MessageEmbedResponse,
  MessageResponse,
  MessageSnapshotResponse,
  MessageStickerResponse,
  type ReferencedMessage,
  withoutReferenced
} from "../../../src/model/Messages.ts"
import { toUserPartial, type UserRow } from "../../../src/model/Users.ts"
import type { UserPartialResponse } from "../../../src/model/Users.ts"
import { DELETED_CREATOR } from "../expressions/ExpressionRows.ts"

/** A row of `messages` as MESSAGE_COLUMNS selects it: bigints as text. */
export interface MessageRow {
  readonly channel_id: string
  readonly id: string
  readonly author_id: string
  readonly type: number
  readonly flags: number
  readonly content: string
  readonly tts: boolean
  readonly mention_everyone: boolean
  readonly mention_user_ids: ReadonlyArray<string>
  readonly mention_role_ids: ReadonlyArray<string>
  readonly embeds: unknown
  readonly attachments: unknown
  readonly stickers: unknown
  readonly reference_channel_id: string | null
  readonly reference_message_id: string | null
  readonly reference_guild_id: string | null
  readonly reference_type: number | null
  readonly snapshots: unknown
  readonly nonce: string | null
  readonly pinned: boolean
  readonly created_at: Date | string
  readonly edited_at: Date | string | null
}

/** The columns of a MessageRow, for `m` the messages table. */
export const MESSAGE_COLUMNS = `m.channel_id::text AS channel_id, m.id::text AS id, m.author_id::text AS author_id, m.type,
  m.flags, m.content, m.tts, m.mention_everyone, m.mention_user_ids::text[] AS mention_user_ids,
  m.mention_role_ids::text[] AS mention_role_ids, m.embeds, m.attachments, m.stickers,
  m.reference_channel_id::text AS reference_channel_id, m.reference_message_id::text AS reference_message_id,
  m.reference_guild_id::text AS reference_guild_id, m.reference_type, m.snapshots, m.nonce, m.pinned, m.created_at,
  m.edited_at`

const decodeEmbeds = Schema.decodeUnknownSync(Schema.Array(MessageEmbedResponse))
const decodeAttachments = Schema.decodeUnknownSync(Schema.Array(MessageAttachmentResponse))
const decodeStickers = Schema.decodeUnknownSync(Schema.Array(MessageStickerResponse))
const decodeSnapshots = Schema.decodeUnknownSync(Schema.NullOr(Schema.Array(MessageSnapshotResponse)))
const decodeReferenceType = Schema.decodeUnknownSync(Schema.Literals([0, 1]))

/** A stored message as the API shows it, its users as they are now. */
export const messageFromRow = (
  row: MessageRow,
  users: ReadonlyMap<string, UserPartialResponse>,
  referenced: ReferencedMessage | null | undefined
): MessageResponse => {
  const user = (id: string) => users.get(id) ?? { ...DELETED_CREATOR, id }
  const stickers = decodeStickers(row.stickers)
  const snapshots = decodeSnapshots(row.snapshots)
  return {
    id: row.id,
    channel_id: row.channel_id,
    author: user(row.author_id),
    type: row.type,
    flags: row.flags,
    content: row.content,
    timestamp: isoTimestamp(row.created_at),
    edited_timestamp: isoTimestampOrNull(row.edited_at),
    pinned: row.pinned,
    mention_everyone: row.mention_everyone,
    tts: row.tts,
    mentions: row.mention_user_ids.map(user),
    mention_roles: row.mention_role_ids,
    embeds: decodeEmbeds(row.embeds),
    attachments: decodeAttachments(row.attachments),
    ...(stickers.length === 0 ? {} : { stickers }),
    ...(row.reference_channel_id === null || row.reference_message_id === null ? {} : {
      message_reference: {
        channel_id: row.reference_channel_id,
        message_id: row.reference_message_id,
        guild_id: row.reference_guild_id,
        type: decodeReferenceType(row.reference_type ?? 0)
      }
    }),
    ...(snapshots === null ? {} : { message_snapshots: snapshots }),
    ...(referenced === undefined ? {} : { referenced_message: referenced }),
    ...(row.nonce === null ? {} : { nonce: row.nonce })
  }
}

const isReply = (row: MessageRow) => row.reference_message_id !== null && (row.reference_type ?? 0) === 0

/**
 * Stored messages as the API shows them: their authors and mentioned users in
 * one query, the messages replies answer in another (deleted ones show null).
 */
export const renderRows = (
  rows: ReadonlyArray<MessageRow>
): Effect.Effect<ReadonlyArray<MessageResponse>, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    if (rows.length === 0) return []
    const sql = yield* SqlClient.SqlClient
    const replyTargets = new Map<string, { readonly channelId: string; readonly id: string }>()
    for (const row of rows) {
      if (!isReply(row) || row.reference_channel_id === null || row.reference_message_id === null) continue
      replyTargets.set(`${row.reference_channel_id}/${row.reference_message_id}`, {
        channelId: row.reference_channel_id,
        id: row.reference_message_id
      })
    }
    // By channel and id, the primary key: an id alone would scan every channel's messages.
    const targets = replyTargets.size === 0 ? [] : yield* sql<MessageRow>`
      SELECT ${sql.literal(MESSAGE_COLUMNS)}
      FROM unnest(${`{${[...replyTargets.values()].map((t) => t.channelId).join(",")}}`}::bigint[],
                  ${`{${[...replyTargets.values()].map((t) => t.id).join(",")}}`}::bigint[]) AS t (channel_id, id)
      JOIN messages m ON m.channel_id = t.channel_id AND m.id = t.id`
    const userIds = [...new Set([...rows, ...targets].flatMap((r) => [r.author_id, ...r.mention_user_ids]))]
    const userRows = yield* sql<UserRow>`SELECT * FROM users WHERE id IN ${sql.in(userIds)}`
    const users = new Map(userRows.map((u) => [u.id, toUserPartial(u)]))
    const byKey = new Map(targets.map((t) => [`${t.channel_id}/${t.id}`, withoutReferenced(messageFromRow(t, users, undefined))]))
    return rows.map((row) =>
      messageFromRow(
        row,
        users,
        isReply(row) ? byKey.get(`${row.reference_channel_id}/${row.reference_message_id}`) ?? null : undefined
      )
    )
  })
