import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { NOT_HELD } from "../../actors/LegalHolds.ts"
import { SNOWFLAKE_EPOCH } from "../../../src/platform/Snowflake.ts"
import { messagesOf } from "./MessageAccess.ts"
import type { GuildEvent } from "../Definitions.ts"
import type { GuildState } from "../State.ts"

/**
 * Deleting many messages of one author across a guild's channels (a ban's
 * delete_message_days, self-service deletion). Messages older than a
 * channel's window are known only to Postgres: the caller reads their ids
 * (the messages_author index) and hands them in, the decision adds those of
 * the windows, so the windows and the events both stay right.
 */
export const StoredMessageRef = Schema.Struct({
  channelId: Schema.String,
  id: Schema.String,
  /** What it says, where its MESSAGE_DELETE carries it (self-service deletion). */
  content: Schema.optional(Schema.String)
})
export type StoredMessageRef = typeof StoredMessageRef.Type

/** The lowest snowflake of `ms` (since the unix epoch): ids at least this were made at `ms` or later. */
export const firstIdAt = (ms: number): bigint => (BigInt(Math.max(0, ms)) - SNOWFLAKE_EPOCH) << 22n

/**
 * The author's messages of the guild's channels with an id of at least
 * `fromId`: those of the windows and those of `stored`, by channel. Channels
 * gone from the guild are left out (their messages went with them), and so are
 * the `held` ones (under a legal hold, shards/actors/LegalHolds.ts).
 */
export const authorMessagesSince = (
  state: GuildState,
  authorId: string,
  fromId: bigint,
  stored: ReadonlyArray<StoredMessageRef>,
  held: ReadonlySet<string> = new Set()
): ReadonlyMap<string, ReadonlySet<string>> => {
  const byChannel = new Map<string, Set<string>>()
  const add = (channelId: string, id: string) => {
    if (!state.channels.has(channelId) || held.has(id)) return
    const ids = byChannel.get(channelId) ?? new Set<string>()
    ids.add(id)
    byChannel.set(channelId, ids)
  }
  for (const [channelId, messages] of state.channelMessages) {
    for (const entry of messages.window.slice(messages.window.lowerBound(fromId), messages.window.size)) {
      if (entry.authorId === authorId) add(channelId, entry.id.toString())
    }
  }
  for (const ref of stored) if (BigInt(ref.id) >= fromId) add(ref.channelId, ref.id)
  return byChannel
}

/** The state without `byChannel`'s messages in the windows. */
export const withoutMessages = (state: GuildState, byChannel: ReadonlyMap<string, ReadonlySet<string>>): GuildState => {
  let channelMessages = state.channelMessages
  for (const [channelId, ids] of byChannel) {
    const messages = messagesOf(state, channelId)
    const window = messages.window.without(new Set([...ids].map((id) => BigInt(id))))
    if (window !== messages.window) channelMessages = channelMessages.with(channelId, { ...messages, window })
  }
  return { ...state, channelMessages }
}

/** One MESSAGE_DELETE_BULK per channel (a moderator's sweep). */
export const bulkDeleteEvents = (guildId: string, byChannel: ReadonlyMap<string, ReadonlySet<string>>): Array<GuildEvent> =>
  [...byChannel].map(([channelId, ids]) => ({
    type: "MESSAGE_DELETE_BULK",
    data: { ids: [...ids], channel_id: channelId, guild_id: guildId }
  }))

/** Deletes the author's messages of the guild from `fromId` on, whether or not a window held them; never a held one. */
export const deleteAuthorMessagesSince = (guildId: string, authorId: string, fromId: bigint) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.asVoid(sql`DELETE FROM messages WHERE author_id = ${authorId} AND guild_id = ${guildId}
      AND id >= ${fromId.toString()} AND ${sql.literal(NOT_HELD)}`))

/** Deletes the author's messages of the guild among `ids`. */
export const deleteAuthorMessages = (guildId: string, authorId: string, ids: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    ids.length === 0 ? Effect.void : Effect.asVoid(sql`DELETE FROM messages WHERE author_id = ${authorId}
      AND guild_id = ${guildId} AND id IN ${sql.in(ids)} AND ${sql.literal(NOT_HELD)}`))
