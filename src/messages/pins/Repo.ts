import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { MESSAGE_COLUMNS, type MessageRow, renderRows } from "../../../shards/guild/messages/StoredMessages.ts"
import { isoTimestamp } from "../../platform/Timestamps.ts"
import type { MessageResponse } from "../../model/Messages.ts"

export interface PinnedMessage {
  readonly message: MessageResponse
  readonly pinned_at: string
}

interface PinnedRow extends MessageRow {
  readonly pin_time: Date | string
}

/**
 * A channel's pins, newest pin first, from the partial index of pinned
 * messages; and how far each user has seen them. Callers check permissions
 * with the guild actor first.
 */
export class PinsRepo extends Context.Service<PinsRepo, {
  /** At most `limit` pins pinned before `before` (all when undefined), and whether more are older. */
  readonly page: (
    channelId: string,
    before: string | undefined,
    limit: number
  ) => Effect.Effect<{ readonly items: ReadonlyArray<PinnedMessage>; readonly hasMore: boolean }>
  readonly ack: (userId: string, channelId: string, at: string) => Effect.Effect<void>
}>()("guildhall/PinsRepo") {
  static readonly layer = Layer.effect(
    PinsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const columns = sql.literal(MESSAGE_COLUMNS)

      const page = Effect.fn("PinsRepo.page")(function*(channelId: string, before: string | undefined, limit: number) {
        // One more than asked: whether it came says if there are more.
        const rows = yield* sql<PinnedRow>`
          SELECT ${columns}, m.pinned_at AS pin_time FROM messages m
          WHERE m.channel_id = ${channelId} AND m.pinned AND m.pinned_at < ${before ?? "infinity"}::timestamptz
          ORDER BY m.pinned_at DESC LIMIT ${limit + 1}`
        const kept = rows.slice(0, limit)
        const messages = yield* renderRows(kept)
        const pinTimes = kept.map((row) => isoTimestamp(row.pin_time))
        return {
          items: messages.map((message, i) => ({ message, pinned_at: pinTimes[i] ?? message.timestamp })),
          hasMore: rows.length > limit
        }
      }, Effect.provideService(SqlClient.SqlClient, sql), Effect.orDie)

      const ack = Effect.fn("PinsRepo.ack")((userId: string, channelId: string, at: string) =>
        sql`INSERT INTO channel_pin_acks (user_id, channel_id, acked_at) VALUES (${userId}, ${channelId}, ${at})
            ON CONFLICT (user_id, channel_id) DO UPDATE SET acked_at = EXCLUDED.acked_at`.pipe(Effect.asVoid, Effect.orDie))

      return PinsRepo.of({ page, ack })
    })
  )
}
