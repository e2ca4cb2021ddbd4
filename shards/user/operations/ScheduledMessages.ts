import { Effect, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { invalidField, unknown } from "../../../src/model/Errors.ts"
import { CarriedId } from "../../../src/model/Ids.ts"
import { MessageCreateRequest } from "../../../src/model/MessageRequests.ts"
import { ScheduledMessageResponse } from "../../../src/model/ScheduledMessages.ts"
import { read, write } from "../Definitions.ts"
import { byId, type ScheduledEntry } from "../Lists.ts"
import type { UserState } from "../State.ts"

/**
 * The user's scheduled messages. Every change of one is a write here: the
 * user's (schedule, edit, delete) and the sweep's (src/messages/scheduled/Sender.ts:
 * claim, then sent, refused or deferred), so the list never shows a stale
 * status. Postgres keeps the rows and the sweep's lease (claimed_until); the
 * checks of sending are the guild's (CheckScheduledMessage), made by the caller.
 * The reference sends no gateway event for them.
 */

const encodeRequest = Schema.encodeSync(MessageCreateRequest)

const iso = (ms: number) => new Date(ms).toISOString()

/** No scheduled message of that id is the user's. */
const unknownScheduled = () => unknown("MESSAGE")

const withEntry = (state: UserState, id: string, entry: ScheduledEntry): UserState => ({
  ...state,
  scheduled: new Map(state.scheduled).set(id, entry)
})

/** A statement of the write, in its batch's transaction. */
const persisting = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, SqlError.SqlError>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.asVoid(statement(sql)))

/** What and when: the create request, and its due instant as the caller worked it out of the wall time. */
const Timing = {
  request: MessageCreateRequest,
  scheduledAt: Schema.Number,
  scheduledLocalAt: Schema.String,
  timezone: Schema.String
}

export const listScheduledMessages = read("ListScheduledMessages", {}, Schema.Array(ScheduledMessageResponse), (state) =>
  Effect.sync(() => [...state.scheduled.values()].map((entry) => entry.view).sort((a, b) => byId(a.id, b.id))))

export const getScheduledMessage = read("GetScheduledMessage", { id: Schema.String }, ScheduledMessageResponse, (state, { id }) => {
  const entry = state.scheduled.get(id)
  return entry === undefined ? Effect.fail(unknownScheduled()) : Effect.succeed(entry.view)
})

/** POST /channels/{id}/messages/schedule, once the guild has checked the send: `id` is the caller's. */
export const scheduleMessage = write(
  "ScheduleMessage",
  { id: Schema.String, channelId: CarriedId.ChannelId, guildId: CarriedId.GuildId, ...Timing },
  ScheduledMessageResponse,
  (state, m, context) => {
    const view: ScheduledMessageResponse = {
      id: m.id,
      channel_id: m.channelId,
      scheduled_at: iso(m.scheduledAt),
      scheduled_local_at: m.scheduledLocalAt,
      timezone: m.timezone,
      status: "scheduled",
      status_reason: null,
      payload: m.request,
      created_at: iso(context.now),
      invalidated_at: null
    }
    return Effect.succeed({
      next: withEntry(state, m.id, { view, guildId: m.guildId, sendOperationId: null, messageId: null }),
      reply: view,
      persist: persisting((sql) =>
        sql`INSERT INTO scheduled_messages (id, user_id, channel_id, guild_id, payload, scheduled_at, scheduled_local_at, timezone, created_at)
          VALUES (${m.id}, ${context.userId}, ${m.channelId}, ${m.guildId}, ${JSON.stringify(encodeRequest(m.request))}::jsonb,
            ${view.scheduled_at}, ${m.scheduledLocalAt}, ${m.timezone}, ${view.created_at})`),
      events: []
    })
  }
)

/** PATCH /users/@me/scheduled-messages/{id}: what and when, only while the sweep has not begun sending it. */
export const updateScheduledMessage = write(
  "UpdateScheduledMessage",
  { id: Schema.String, ...Timing },
  ScheduledMessageResponse,
  (state, m, context) => {
    const entry = state.scheduled.get(m.id)
    if (entry === undefined) return Effect.fail(unknownScheduled())
    if (entry.view.status !== "scheduled" || entry.sendOperationId !== null) {
      return Effect.fail(invalidField("scheduled_local_at", "INVALID_SCHEDULED_MESSAGE_PAYLOAD", "The message was sent already"))
    }
    const view: ScheduledMessageResponse = {
      ...entry.view,
      payload: m.request,
      scheduled_at: iso(m.scheduledAt),
      scheduled_local_at: m.scheduledLocalAt,
      timezone: m.timezone
    }
    return Effect.succeed({
      next: withEntry(state, m.id, { ...entry, view }),
      reply: view,
      persist: persisting((sql) =>
        sql`UPDATE scheduled_messages SET payload = ${JSON.stringify(encodeRequest(m.request))}::jsonb,
            scheduled_at = ${view.scheduled_at}, scheduled_local_at = ${m.scheduledLocalAt}, timezone = ${m.timezone}
          WHERE user_id = ${context.userId} AND id = ${m.id}`),
      events: []
    })
  }
)

/** DELETE /users/@me/scheduled-messages/{id}: a message not sent yet never will be; a sent one's record goes. */
export const deleteScheduledMessage = write("DeleteScheduledMessage", { id: Schema.String }, Schema.Null, (state, { id }, context) => {
  if (!state.scheduled.has(id)) return Effect.fail(unknownScheduled())
  const scheduled = new Map(state.scheduled)
  scheduled.delete(id)
  return Effect.succeed({
    next: { ...state, scheduled },
    reply: null,
    persist: persisting((sql) => sql`DELETE FROM scheduled_messages WHERE user_id = ${context.userId} AND id = ${id}`),
    events: []
  })
})

/** What the sweep sends, under which operation. */
export const ScheduledSend = Schema.Struct({
  operationId: Schema.String,
  guildId: CarriedId.GuildId,
  channelId: CarriedId.ChannelId,
  request: MessageCreateRequest
})
export type ScheduledSend = typeof ScheduledSend.Type

/**
 * The sweep took a due message (its lease in Postgres keeps other processes
 * off it): the message to send, under the operation of its first claim
 * (`operationId` is taken only by that one), so a send retried after a crash
 * is answered from the guild's record rather than made twice. From then on no
 * edit is taken. Null: it is settled already (sent or refused), and Postgres,
 * which had it as still due, is told so again.
 */
export const claimScheduledMessage = write(
  "ClaimScheduledMessage",
  { id: Schema.String, operationId: Schema.String },
  Schema.NullOr(ScheduledSend),
  (state, { id, operationId }, context) => {
    const entry = state.scheduled.get(id)
    if (entry === undefined) return Effect.fail(unknownScheduled())
    const { view } = entry
    if (view.status !== "scheduled") {
      return Effect.succeed({
        next: state,
        reply: null,
        persist: persisting((sql) =>
          sql`UPDATE scheduled_messages SET status = ${view.status}, status_reason = ${view.status_reason},
              invalidated_at = ${view.invalidated_at}, message_id = ${entry.messageId}, claimed_until = NULL
            WHERE user_id = ${context.userId} AND id = ${id}`),
        events: []
      })
    }
    const send: ScheduledSend = {
      operationId: entry.sendOperationId ?? operationId,
      guildId: entry.guildId,
      channelId: CarriedId.ChannelId.make(view.channel_id),
      request: view.payload
    }
    if (entry.sendOperationId !== null) return Effect.succeed({ next: state, reply: send, events: [] })
    return Effect.succeed({
      next: withEntry(state, id, { ...entry, sendOperationId: operationId }),
      reply: send,
      persist: persisting((sql) =>
        sql`UPDATE scheduled_messages SET send_operation_id = ${operationId} WHERE user_id = ${context.userId} AND id = ${id}`),
      events: []
    })
  }
)

/**
 * The outcome of a claimed send, which ends the sweep's lease. A message
 * deleted meanwhile stays deleted (and the answer is null all the same).
 */
const settle = (
  state: UserState,
  id: string,
  userId: string,
  change: (entry: ScheduledEntry) => ScheduledEntry,
  columns: Record<string, string | null>
) => {
  const entry = state.scheduled.get(id)
  if (entry === undefined) return Effect.succeed({ next: state, reply: null, events: [] })
  return Effect.succeed({
    next: withEntry(state, id, change(entry)),
    reply: null,
    persist: persisting((sql) => sql`UPDATE scheduled_messages SET ${sql.update(columns)} WHERE user_id = ${userId} AND id = ${id}`),
    events: []
  })
}

/** The guild took the send: the message it became. */
export const scheduledMessageSent = write(
  "ScheduledMessageSent",
  { id: Schema.String, messageId: Schema.String },
  Schema.Null,
  (state, { id, messageId }, context) =>
    settle(state, id, context.userId, (entry) => ({ ...entry, view: { ...entry.view, status: "sent" }, messageId }), {
      status: "sent",
      message_id: messageId,
      claimed_until: null
    })
)

/** The guild refused the send (the author left, lost SEND_MESSAGES, the channel is gone): `reason` is its code. */
export const scheduledMessageRefused = write(
  "ScheduledMessageRefused",
  { id: Schema.String, reason: Schema.String },
  Schema.Null,
  (state, { id, reason }, context) => {
    const at = iso(context.now)
    return settle(state, id, context.userId, (entry) => ({
      ...entry,
      view: { ...entry.view, status: "invalid", status_reason: reason, invalidated_at: at }
    }), { status: "invalid", status_reason: reason, invalidated_at: at, claimed_until: null })
  }
)

/**
 * A slowmode refused the send for now: it is sent again in `afterMillis`, as
 * a new operation (the refusal is what the first one's record holds), and
 * until then it may be edited again.
 */
export const scheduledMessageDeferred = write(
  "ScheduledMessageDeferred",
  { id: Schema.String, afterMillis: Schema.Number },
  Schema.Null,
  (state, { id, afterMillis }, context) =>
    settle(state, id, context.userId, (entry) => ({ ...entry, sendOperationId: null }), {
      send_operation_id: null,
      claimed_until: iso(context.now + afterMillis)
    })
)

export const scheduledReads = [listScheduledMessages, getScheduledMessage] as const
export const scheduledWrites = [
  scheduleMessage,
  updateScheduledMessage,
  deleteScheduledMessage,
  claimScheduledMessage,
  scheduledMessageSent,
  scheduledMessageRefused,
  scheduledMessageDeferred
] as const
