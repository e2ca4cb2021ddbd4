import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import type { FavoriteMemeResponse } from "../../src/model/FavoriteMemes.ts"
import type { ChannelId, GuildId } from "../../src/model/Ids.ts"
import { MessageCreateRequest } from "../../src/model/MessageRequests.ts"
import { ScheduledMessageStatus } from "../../src/model/ScheduledMessages.ts"
import { isoTimestamp, isoTimestampOrNull } from "../../src/platform/Timestamps.ts"
import { ConnectionType } from "../../src/model/Connections.ts"
import type { ConnectionEntry, PushSubscriptionEntry, SavedEntry, ScheduledEntry, UserLists } from "./Lists.ts"

const decodeRequest = Schema.decodeUnknownEffect(MessageCreateRequest)
const decodeConnectionType = Schema.decodeUnknownEffect(ConnectionType)
const decodeStatus = Schema.decodeUnknownEffect(ScheduledMessageStatus)

interface ScheduledRow {
  readonly id: string
  readonly channel_id: ChannelId
  readonly guild_id: GuildId
  readonly payload: unknown
  readonly scheduled_at: Date | string
  readonly scheduled_local_at: string
  readonly timezone: string
  readonly status: string
  readonly status_reason: string | null
  readonly created_at: Date | string
  readonly invalidated_at: Date | string | null
  readonly send_operation_id: string | null
  readonly message_id: string | null
}

const scheduledEntry = (row: ScheduledRow) =>
  Effect.gen(function*() {
    // The driver may hand jsonb back as text; what is stored was checked on the way in.
    const payload = yield* decodeRequest(typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload)
    const entry: ScheduledEntry = {
      view: {
        id: row.id,
        channel_id: row.channel_id,
        scheduled_at: isoTimestamp(row.scheduled_at),
        scheduled_local_at: row.scheduled_local_at,
        timezone: row.timezone,
        status: yield* decodeStatus(row.status),
        status_reason: row.status_reason,
        payload,
        created_at: isoTimestamp(row.created_at),
        invalidated_at: isoTimestampOrNull(row.invalidated_at)
      },
      guildId: row.guild_id,
      sendOperationId: row.send_operation_id,
      messageId: row.message_id
    }
    return entry
  })

interface ConnectionRow {
  readonly id: string
  readonly type: string
  readonly name: string
  readonly proof: string
  readonly verified: boolean
  readonly verified_at: Date | string | null
  readonly visibility_flags: number
  readonly sort_order: number
}

const connectionEntry = (row: ConnectionRow) =>
  Effect.map(decodeConnectionType(row.type), (type): ConnectionEntry => ({
    view: {
      id: row.id,
      type,
      name: row.name,
      verified: row.verified,
      visibility_flags: row.visibility_flags,
      sort_order: row.sort_order
    },
    proof: row.proof,
    verifiedAt: row.verified_at === null ? null : new Date(row.verified_at).getTime()
  }))

interface MemeRow {
  readonly id: string
  readonly user_id: string
  readonly name: string
  readonly alt_text: string | null
  readonly tags: ReadonlyArray<string> | null
  readonly attachment_id: string
  readonly filename: string
  readonly content_type: string
  readonly content_hash: string | null
  readonly size: string | number
  readonly width: number | null
  readonly height: number | null
  readonly duration: number | null
  readonly url: string
  readonly is_gifv: boolean
  readonly gifa_slug_id: string | null
  readonly gifb_slug: string | null
}

const memeOf = (row: MemeRow): FavoriteMemeResponse => ({
  id: row.id,
  user_id: row.user_id,
  name: row.name,
  alt_text: row.alt_text,
  tags: row.tags ?? [],
  attachment_id: row.attachment_id,
  filename: row.filename,
  content_type: row.content_type,
  content_hash: row.content_hash,
  size: Number(row.size),
  width: row.width,
  height: row.height,
  duration: row.duration,
  url: row.url,
  is_gifv: row.is_gifv,
  gifb_slug: row.gifb_slug,
  gifa_slug_id: row.gifa_slug_id
})

/** The user's saved messages, push subscriptions, scheduled messages, connections and saved media, as their actor keeps them (Lists.ts). */
export const loadLists = (sql: SqlClient.SqlClient, userId: string) =>
  Effect.gen(function*() {
    const saved = yield* sql<{ message_id: string; channel_id: string; saved_at: Date | string }>`
      SELECT message_id::text AS message_id, channel_id::text AS channel_id, saved_at FROM saved_messages WHERE user_id = ${userId}`
    const push = yield* sql<{ id: string; endpoint: string; user_agent: string | null; session_hash: Uint8Array; updated_at: Date | string }>`
      SELECT id, endpoint, user_agent, session_hash, updated_at FROM push_subscriptions WHERE user_id = ${userId}
      ORDER BY created_at, id`
    const scheduled = yield* sql<ScheduledRow>`
      SELECT id::text AS id, channel_id::text AS channel_id, guild_id::text AS guild_id, payload, scheduled_at, scheduled_local_at,
        timezone, status, status_reason, created_at, invalidated_at, send_operation_id::text AS send_operation_id,
        message_id::text AS message_id
      FROM scheduled_messages WHERE user_id = ${userId}`
    const connections = yield* sql<ConnectionRow>`
      SELECT id::text AS id, type, name, proof, verified, verified_at, visibility_flags, sort_order
      FROM user_connections WHERE user_id = ${userId}`
    const memes = yield* sql<MemeRow>`
      SELECT id::text AS id, user_id::text AS user_id, name, alt_text, tags, attachment_id::text AS attachment_id, filename,
        content_type, content_hash, size::text AS size, width, height, duration, url, is_gifv, gifa_slug_id, gifb_slug
      FROM favorite_memes WHERE user_id = ${userId}`
    const lists: UserLists = {
      saved: new Map(saved.map((row): [string, SavedEntry] => [
        row.message_id,
        { channelId: row.channel_id, savedAt: new Date(row.saved_at).getTime() }
      ])),
      pushSubscriptions: new Map(push.map((row): [string, PushSubscriptionEntry] => [row.id, {
        id: row.id,
        endpoint: row.endpoint,
        userAgent: row.user_agent,
        sessionHash: Buffer.from(row.session_hash).toString("hex"),
        updatedAt: new Date(row.updated_at).getTime()
      }])),
      scheduled: new Map(yield* Effect.forEach(scheduled, (row) => Effect.map(scheduledEntry(row), (entry) => [row.id, entry] as const))),
      connections: new Map(yield* Effect.forEach(connections, (row) => Effect.map(connectionEntry(row), (entry) => [row.id, entry] as const))),
      memes: new Map(memes.map((row) => [row.id, memeOf(row)]))
    }
    return lists
  })
