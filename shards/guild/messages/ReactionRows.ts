import { Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { isoTimestamp } from "../../../src/platform/Timestamps.ts"
import { idArray } from "./MessageRows.ts"
import type { ChannelMessages } from "./MessageWindow.ts"
import type { RowSink, RowWrite, SqlValue } from "../Definitions.ts"
import type { MessageReactions, ShownEmoji } from "./WindowReactions.ts"
import { SharedMap } from "../SharedMap.ts"

/** The last value of a reaction row: added to a message of the window (known to exist), to an older one, or removed. */
const ADDED = "added"
const ADDED_TO_OLDER = "added-to-older"
const REMOVED = "removed"
export type ReactionChange = typeof ADDED | typeof ADDED_TO_OLDER | typeof REMOVED

const valuesOf = (sql: SqlClient.SqlClient, rows: ReadonlyArray<ReadonlyArray<SqlValue>>) =>
  sql.csv(rows.map((values) => sql`(${sql.csv(values.map((value) => sql`${value}`))})`))

/**
 * Reaction rows as a batch writes them: the added ones in one insert, the
 * removed ones in one delete. A reaction to an older message (the caller read
 * it from Postgres) is inserted only if the message is still there; one of the
 * window needs no check, and may come before its message's row (the foreign
 * key waits for the commit).
 */
export const reactionRows: RowSink = {
  name: "message_reactions",
  statements: (sql, _guildId, rows) => {
    const added = rows.filter((r) => r[8] !== REMOVED).map((r) => [...r.slice(0, 8), String(r[8] === ADDED)])
    const removed = rows.filter((r) => r[8] === REMOVED).map((r) => r.slice(0, 4))
    return [
      ...(added.length === 0 ? [] : [
        sql`INSERT INTO message_reactions (channel_id, message_id, emoji_key, user_id, emoji_id, emoji_name, animated, created_at)
          SELECT v.channel_id::bigint, v.message_id::bigint, v.emoji_key, v.user_id::bigint, v.emoji_id::bigint, v.emoji_name,
                 v.animated::boolean, v.created_at::timestamptz
          FROM (VALUES ${valuesOf(sql, added)})
            AS v(channel_id, message_id, emoji_key, user_id, emoji_id, emoji_name, animated, created_at, in_window)
          WHERE v.in_window::boolean OR EXISTS (
            SELECT 1 FROM messages m WHERE m.channel_id = v.channel_id::bigint AND m.id = v.message_id::bigint)
          ON CONFLICT DO NOTHING`
      ]),
      ...(removed.length === 0 ? [] : [
        sql`DELETE FROM message_reactions r USING (VALUES ${valuesOf(sql, removed)}) AS v(channel_id, message_id, emoji_key, user_id)
          WHERE r.channel_id = v.channel_id::bigint AND r.message_id = v.message_id::bigint AND r.emoji_key = v.emoji_key
            AND r.user_id = v.user_id::bigint`
      ])
    ]
  }
}

/** `userId`'s reaction with `emoji` on a message, added (at `now`) or removed. */
export const reactionRow = (
  channelId: string,
  messageId: string,
  key: string,
  emoji: ShownEmoji,
  userId: string,
  now: number,
  change: ReactionChange
): RowWrite => ({
  sink: reactionRows,
  key: `${channelId}/${messageId}/${key}/${userId}`,
  values: [
    channelId,
    messageId,
    key,
    userId,
    emoji.id,
    emoji.name,
    String(emoji.animated),
    new Date(now).toISOString(),
    change
  ]
})

/** Removes every reaction of a message, or only those with one emoji. */
export const deleteReactions = (channelId: string, messageId: string, key?: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.asVoid(key === undefined
      ? sql`DELETE FROM message_reactions WHERE channel_id = ${channelId} AND message_id = ${messageId}`
      : sql`DELETE FROM message_reactions WHERE channel_id = ${channelId} AND message_id = ${messageId} AND emoji_key = ${key}`))

/** Pins or unpins a message; `pinnedAt` null unpins. */
export const setPinned = (channelId: string, messageId: string, pinnedAt: string | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.asVoid(sql`UPDATE messages SET pinned = ${pinnedAt !== null}, pinned_at = ${pinnedAt}::timestamptz
                      WHERE channel_id = ${channelId} AND id = ${messageId}`))

/** The columns that name one reaction of one message (message_reactions). */
export interface ReactionColumns {
  readonly channel_id: string
  readonly message_id: string
  readonly emoji_key: string
  readonly emoji_id: string | null
  readonly emoji_name: string
  readonly animated: boolean
}

interface ReactionRow extends ReactionColumns {
  readonly user_id: string
}

interface PinRow {
  readonly channel_id: string
  readonly id: string
  readonly pinned_at: Date | string | null
}

/**
 * The windows of a guild's channels (loadChannelMessages) with their
 * messages' reactions and their channels' pins: one range scan of the
 * reactions key per window message, one scan of the pins index.
 */
export const withReactionsAndPins = (guildId: string) =>
(
  channelMessages: SharedMap<string, ChannelMessages>
): Effect.Effect<SharedMap<string, ChannelMessages>, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const channelIds: Array<string> = []
    const messageIds: Array<string> = []
    for (const [channelId, messages] of channelMessages) {
      for (const entry of messages.window.slice(0, messages.window.size)) {
        channelIds.push(channelId)
        messageIds.push(entry.id.toString())
      }
    }
    const reactionRows = messageIds.length === 0 ? [] : yield* sql<ReactionRow>`
      SELECT r.channel_id::text AS channel_id, r.message_id::text AS message_id, r.emoji_key, r.emoji_id::text AS emoji_id,
             r.emoji_name, r.animated, r.user_id::text AS user_id
      FROM unnest(${idArray(channelIds)}::bigint[], ${idArray(messageIds)}::bigint[]) AS w(channel_id, message_id)
      JOIN message_reactions r ON r.channel_id = w.channel_id AND r.message_id = w.message_id
      ORDER BY r.created_at, r.user_id`
    const pinRows = yield* sql<PinRow>`
      SELECT channel_id::text AS channel_id, id::text AS id, pinned_at FROM messages WHERE guild_id = ${guildId} AND pinned`
    const reactions = new Map<string, Map<string, Map<string, { emoji: ShownEmoji; users: Array<string> }>>>()
    for (const r of reactionRows) {
      const byMessage = reactions.get(r.channel_id) ?? new Map<string, Map<string, { emoji: ShownEmoji; users: Array<string> }>>()
      const byEmoji = byMessage.get(r.message_id) ?? new Map<string, { emoji: ShownEmoji; users: Array<string> }>()
      const reaction = byEmoji.get(r.emoji_key) ?? { emoji: { id: r.emoji_id, name: r.emoji_name, animated: r.animated }, users: [] }
      reaction.users.push(r.user_id)
      byEmoji.set(r.emoji_key, reaction)
      byMessage.set(r.message_id, byEmoji)
      reactions.set(r.channel_id, byMessage)
    }
    const pins = new Map<string, Map<string, string>>()
    for (const p of pinRows) {
      const forChannel = pins.get(p.channel_id) ?? new Map<string, string>()
      forChannel.set(p.id, p.pinned_at === null ? new Date(0).toISOString() : isoTimestamp(p.pinned_at))
      pins.set(p.channel_id, forChannel)
    }
    const changed: Array<readonly [string, ChannelMessages]> = []
    for (const [channelId, messages] of channelMessages) {
      const byMessage = reactions.get(channelId)
      const channelPins = pins.get(channelId)
      if (byMessage === undefined && channelPins === undefined) continue
      changed.push([channelId, {
        ...messages,
        ...(byMessage === undefined ? {} : {
          reactions: SharedMap.from([...byMessage].map(([messageId, byEmoji]): [string, MessageReactions] => [
            messageId,
            [...byEmoji].map(([key, r]) => ({ key, emoji: r.emoji, users: r.users }))
          ]))
        }),
        ...(channelPins === undefined ? {} : { pins: channelPins })
      }])
    }
    return changed.length === 0 ? channelMessages : channelMessages.withAll(changed)
  })
