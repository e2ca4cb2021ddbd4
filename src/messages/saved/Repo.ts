import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { MESSAGE_COLUMNS, type MessageRow, renderRows } from "../../../shards/guild/messages/StoredMessages.ts"
import type { MessageResponse } from "../../model/Messages.ts"

export interface SavedMessage {
  readonly channelId: string
  readonly messageId: string
  readonly guildId: string | null
  /** The stored message; the caller shows it only when the user may read its channel. */
  readonly message: MessageResponse
}

/** saved_messages (schema/0024): one row per user and message. */
export class SavedMessagesRepo extends Context.Service<SavedMessagesRepo, {
  readonly save: (userId: string, channelId: string, messageId: string) => Effect.Effect<void>
  /** False when the message was not saved. */
  readonly unsave: (userId: string, messageId: string) => Effect.Effect<boolean>
  /** Newest saved first; messages deleted since are left out. */
  readonly list: (userId: string, limit: number) => Effect.Effect<ReadonlyArray<SavedMessage>>
}>()("guildhall/SavedMessagesRepo") {
  static readonly layer = Layer.effect(
    SavedMessagesRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const save = Effect.fn("SavedMessagesRepo.save")((userId: string, channelId: string, messageId: string) =>
        sql`INSERT INTO saved_messages (user_id, message_id, channel_id) VALUES (${userId}, ${messageId}, ${channelId})
            ON CONFLICT (user_id, message_id) DO UPDATE SET saved_at = now()`.pipe(Effect.asVoid, Effect.orDie))

      const unsave = Effect.fn("SavedMessagesRepo.unsave")((userId: string, messageId: string) =>
        sql<{ message_id: string }>`DELETE FROM saved_messages WHERE user_id = ${userId} AND message_id = ${messageId}
                                    RETURNING message_id::text AS message_id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie))

      const list = Effect.fn("SavedMessagesRepo.list")(function*(userId: string, limit: number) {
        const rows = yield* sql<MessageRow & { readonly guild_id: string | null }>`
          SELECT ${sql.literal(MESSAGE_COLUMNS)}, m.guild_id::text AS guild_id
          FROM (SELECT * FROM saved_messages WHERE user_id = ${userId} ORDER BY saved_at DESC, message_id DESC LIMIT ${limit}) s
          JOIN messages m ON m.channel_id = s.channel_id AND m.id = s.message_id
          ORDER BY s.saved_at DESC, s.message_id DESC`
        const messages = yield* renderRows(rows)
        return rows.flatMap((row, i) => {
          const message = messages[i]
          return message === undefined ? [] : [{ channelId: row.channel_id, messageId: row.id, guildId: row.guild_id, message }]
        })
      }, Effect.provideService(SqlClient.SqlClient, sql), Effect.orDie)

      return SavedMessagesRepo.of({ save, unsave, list })
    })
  )
}
