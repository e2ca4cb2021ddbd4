import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { MessageCreateRequest } from "../../model/MessageRequests.ts"
import { type ScheduledMessageResponse, ScheduledMessageStatus } from "./Schemas.ts"
import type { ChannelId, GuildId } from "../../model/Ids.ts"

interface Row {
  readonly id: string
  readonly user_id: string
  readonly channel_id: ChannelId
  readonly guild_id: GuildId
  readonly payload: unknown
  readonly scheduled_at: Date
  readonly scheduled_local_at: string
  readonly timezone: string
  readonly status: string
  readonly status_reason: string | null
  readonly created_at: Date
  readonly invalidated_at: Date | null
  readonly send_operation_id: string | null
}

/** A due scheduled message, claimed by this process for the lease. */
export interface ClaimedMessage {
  readonly id: string
  readonly userId: string
  readonly channelId: ChannelId
  readonly guildId: GuildId
  readonly request: MessageCreateRequest
  /** The operation of its send: the same on every attempt. */
  readonly operationId: string
}

export interface NewScheduledMessage {
  readonly id: string
  readonly userId: string
  readonly channelId: ChannelId
  readonly guildId: GuildId
  readonly request: MessageCreateRequest
  readonly scheduledAt: number
  readonly scheduledLocalAt: string
  readonly timezone: string
}

const encodeRequest = Schema.encodeSync(MessageCreateRequest)
const decodeRequest = Schema.decodeUnknownEffect(MessageCreateRequest)
const decodeStatus = Schema.decodeUnknownEffect(ScheduledMessageStatus)

const COLUMNS = `id::text AS id, user_id::text AS user_id, channel_id::text AS channel_id, guild_id::text AS guild_id,
  payload, scheduled_at, scheduled_local_at, timezone, status, status_reason, created_at, invalidated_at,
  send_operation_id::text AS send_operation_id`

const render = (row: Row) =>
  Effect.gen(function*() {
    const payload = yield* decodeRequest(row.payload)
    const status = yield* decodeStatus(row.status)
    return {
      id: row.id,
      channel_id: row.channel_id,
      scheduled_at: row.scheduled_at.toISOString(),
      scheduled_local_at: row.scheduled_local_at,
      timezone: row.timezone,
      status,
      status_reason: row.status_reason,
      payload,
      created_at: row.created_at.toISOString(),
      invalidated_at: row.invalidated_at?.toISOString() ?? null
    } satisfies ScheduledMessageResponse
  }).pipe(Effect.orDie)

/**
 * Scheduled messages in Postgres: the user's view of them, and the sweep's
 * claims. A row is claimed for a lease (claimed_until) under
 * `FOR UPDATE SKIP LOCKED`, so processes sweeping at once never take the same
 * row, and a row whose claimer died is taken again once its lease is over.
 */
export class ScheduledMessagesRepo extends Context.Service<ScheduledMessagesRepo, {
  readonly insert: (message: NewScheduledMessage) => Effect.Effect<ScheduledMessageResponse>
  readonly list: (userId: string) => Effect.Effect<ReadonlyArray<ScheduledMessageResponse>>
  readonly find: (userId: string, id: string) => Effect.Effect<ScheduledMessageResponse | undefined>
  /** Replaces what and when; only while nothing has been sent (false otherwise). */
  readonly update: (
    userId: string,
    id: string,
    change: Pick<NewScheduledMessage, "request" | "scheduledAt" | "scheduledLocalAt" | "timezone">
  ) => Effect.Effect<boolean>
  readonly remove: (userId: string, id: string) => Effect.Effect<boolean>
  /** Claims up to `limit` due messages for `leaseSeconds`; `mint` gives a first claim its send operation id. */
  readonly claimDue: (limit: number, leaseSeconds: number, mint: () => string) => Effect.Effect<ReadonlyArray<ClaimedMessage>>
  readonly markSent: (id: string, messageId: string) => Effect.Effect<void>
  readonly markInvalid: (id: string, reason: string) => Effect.Effect<void>
  /** Gives the claim back, to be sent again in `afterMillis` (a slowmode). */
  readonly retryLater: (id: string, afterMillis: number) => Effect.Effect<void>
}>()("guildhall/ScheduledMessagesRepo") {
  static readonly layer = Layer.effect(
    ScheduledMessagesRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const columns = sql.literal(COLUMNS)

      const find = Effect.fn("ScheduledMessagesRepo.find")((userId: string, id: string) =>
        sql<Row>`SELECT ${columns} FROM scheduled_messages WHERE user_id = ${userId} AND id = ${id}`.pipe(
          Effect.orDie,
          Effect.flatMap((rows) => (rows[0] === undefined ? Effect.succeed(undefined) : render(rows[0])))
        ))

      const insert = Effect.fn("ScheduledMessagesRepo.insert")((m: NewScheduledMessage) =>
        sql<Row>`INSERT INTO scheduled_messages (id, user_id, channel_id, guild_id, payload, scheduled_at, scheduled_local_at, timezone)
          VALUES (${m.id}, ${m.userId}, ${m.channelId}, ${m.guildId}, ${JSON.stringify(encodeRequest(m.request))}::jsonb,
            ${new Date(m.scheduledAt).toISOString()}, ${m.scheduledLocalAt}, ${m.timezone})
          RETURNING ${columns}`.pipe(
          Effect.orDie,
          Effect.flatMap((rows) => (rows[0] === undefined ? Effect.die(new Error("insert returned nothing")) : render(rows[0])))
        ))

      const list = Effect.fn("ScheduledMessagesRepo.list")((userId: string) =>
        sql<Row>`SELECT ${columns} FROM scheduled_messages WHERE user_id = ${userId} ORDER BY id`.pipe(
          Effect.orDie,
          Effect.flatMap((rows) => Effect.forEach(rows, render))
        ))

      const update: ScheduledMessagesRepo["Service"]["update"] = Effect.fn("ScheduledMessagesRepo.update")((userId, id, change) =>
        sql`UPDATE scheduled_messages SET payload = ${JSON.stringify(encodeRequest(change.request))}::jsonb,
            scheduled_at = ${new Date(change.scheduledAt).toISOString()}, scheduled_local_at = ${change.scheduledLocalAt},
            timezone = ${change.timezone}
          WHERE user_id = ${userId} AND id = ${id} AND status = 'scheduled' AND send_operation_id IS NULL
          RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie))

      const remove = Effect.fn("ScheduledMessagesRepo.remove")((userId: string, id: string) =>
        sql`DELETE FROM scheduled_messages WHERE user_id = ${userId} AND id = ${id} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ))

      const claimDue = Effect.fn("ScheduledMessagesRepo.claimDue")(function*(limit: number, leaseSeconds: number, mint: () => string) {
        const due = yield* sql<Row>`
          SELECT ${columns} FROM scheduled_messages
          WHERE status = 'scheduled' AND scheduled_at <= now() AND (claimed_until IS NULL OR claimed_until < now())
          ORDER BY scheduled_at LIMIT ${limit}
          FOR UPDATE SKIP LOCKED`
        const claimed: Array<ClaimedMessage> = []
        for (const row of due) {
          const operationId = row.send_operation_id ?? mint()
          yield* sql`UPDATE scheduled_messages SET claimed_until = now() + make_interval(secs => ${leaseSeconds}),
              send_operation_id = ${operationId} WHERE id = ${row.id}`
          const request = yield* Effect.orDie(decodeRequest(row.payload))
          claimed.push({ id: row.id, userId: row.user_id, channelId: row.channel_id, guildId: row.guild_id, request, operationId })
        }
        return claimed
      }, sql.withTransaction, Effect.orDie)

      const markSent = Effect.fn("ScheduledMessagesRepo.markSent")((id: string, messageId: string) =>
        sql`UPDATE scheduled_messages SET status = 'sent', message_id = ${messageId}, claimed_until = NULL
            WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie))

      const markInvalid = Effect.fn("ScheduledMessagesRepo.markInvalid")((id: string, reason: string) =>
        sql`UPDATE scheduled_messages SET status = 'invalid', status_reason = ${reason}, invalidated_at = now(),
            claimed_until = NULL WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie))

      // The refusal was recorded under the operation id: the next attempt is a new operation (nothing was sent).
      const retryLater = Effect.fn("ScheduledMessagesRepo.retryLater")((id: string, afterMillis: number) =>
        sql`UPDATE scheduled_messages SET claimed_until = now() + make_interval(secs => ${afterMillis / 1000}),
            send_operation_id = NULL
            WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie))

      return ScheduledMessagesRepo.of({ insert, list, find, update, remove, claimDue, markSent, markInvalid, retryLater })
    })
  )
}
