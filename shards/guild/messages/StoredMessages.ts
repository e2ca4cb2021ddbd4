import { Effect, Record, Schema } from "effect"
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
import type { UserPartialResponse } from "../../../src/model/Users.ts"
import { loadPartialUsers } from "../../actors/PartialUsers.ts"
import { DELETED_CREATOR } from "../expressions/ExpressionRows.ts"
import { webhookAuthor } from "../webhooks/GuildWebhook.ts"

const IdOrNull = Schema.NullOr(Schema.String)
/** A timestamptz column as the driver hands it back: a Date, or text. */
const Timestamp = Schema.Union([Schema.Date, Schema.String])

/**
 * The columns of `messages` a stored message is rendered from, each with the
 * schema that decodes it (bigints arrive as decimal text; the jsonb columns
 * are decoded to their wire schemas by `messageFromRow`).
 */
export const MessageRow = Schema.Struct({
  channel_id: Schema.String,
  id: Schema.String,
  author_id: Schema.String,
  type: Schema.Int,
  flags: Schema.Int,
  content: Schema.String,
  tts: Schema.Boolean,
  mention_everyone: Schema.Boolean,
  mention_user_ids: Schema.Array(Schema.String),
  mention_role_ids: Schema.Array(Schema.String),
  embeds: Schema.Unknown,
  attachments: Schema.Unknown,
  stickers: Schema.Unknown,
  reference_channel_id: IdOrNull,
  reference_message_id: IdOrNull,
  reference_guild_id: IdOrNull,
  reference_type: Schema.NullOr(Schema.Int),
  snapshots: Schema.Unknown,
  nonce: Schema.NullOr(Schema.String),
  pinned: Schema.Boolean,
  created_at: Timestamp,
  edited_at: Schema.NullOr(Timestamp),
  webhook_id: IdOrNull,
  webhook_name: Schema.NullOr(Schema.String),
  webhook_avatar: Schema.NullOr(Schema.String)
})
export type MessageRow = typeof MessageRow.Type

/** The columns of a MessageRow, as `messages` names them. */
export const MESSAGE_COLUMN_NAMES = Record.keys(MessageRow.fields)

/** The columns of a MessageRow, for `m` the messages table. */
export const MESSAGE_COLUMNS = MESSAGE_COLUMN_NAMES.map((column) => `m.${column}`).join(", ")

/** Decodes selected rows of MESSAGE_COLUMNS. */
export const decodeMessageRows = Schema.decodeUnknownEffect(Schema.Array(MessageRow))

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
    author: row.webhook_id === null
      ? user(row.author_id)
      : webhookAuthor(row.webhook_id, row.webhook_name ?? "", row.webhook_avatar),
    ...(row.webhook_id === null ? {} : { webhook_id: row.webhook_id }),
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
): Effect.Effect<ReadonlyArray<MessageResponse>, SqlError.SqlError | Schema.SchemaError, SqlClient.SqlClient> =>
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
    const targets = replyTargets.size === 0 ? [] : yield* decodeMessageRows(yield* sql`
      SELECT ${sql.literal(MESSAGE_COLUMNS)}
      FROM unnest(${`{${[...replyTargets.values()].map((t) => t.channelId).join(",")}}`}::bigint[],
                  ${`{${[...replyTargets.values()].map((t) => t.id).join(",")}}`}::bigint[]) AS t (channel_id, id)
      JOIN messages m ON m.channel_id = t.channel_id AND m.id = t.id`)
    const userIds = [
      ...new Set([...rows, ...targets].flatMap((r) => [...(r.webhook_id === null ? [r.author_id] : []), ...r.mention_user_ids]))
    ]
    const users = yield* loadPartialUsers(userIds)
    const byKey = new Map(targets.map((t) => [`${t.channel_id}/${t.id}`, withoutReferenced(messageFromRow(t, users, undefined))]))
    return rows.map((row) =>
      messageFromRow(
        row,
        users,
        isReply(row) ? byKey.get(`${row.reference_channel_id}/${row.reference_message_id}`) ?? null : undefined
      )
    )
  })
