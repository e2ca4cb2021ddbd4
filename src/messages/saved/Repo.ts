import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { idArray } from "../../../shards/guild/messages/MessageRows.ts"
import { MESSAGE_COLUMNS, type MessageRow, renderRows } from "../../../shards/guild/messages/StoredMessages.ts"
import type { MessageResponse } from "../../model/Messages.ts"

/** A saved message as the user's actor lists it (shards/user/operations/SavedMessages.ts). */
export interface SavedId {
  readonly channelId: string
  readonly messageId: string
}

export interface SavedMessage extends SavedId {
  readonly guildId: string | null
  /** The stored message; the caller shows it only when the user may read its channel. */
  readonly message: MessageResponse
}

/**
 * The messages of a page of saved ones. Which messages a user saved, and in
 * what order, is their actor's (saved_messages is written by it); the
 * messages themselves are read here, in one statement by primary key.
 */
export class SavedMessagesRepo extends Context.Service<SavedMessagesRepo, {
  /** The messages of `saved`, in its order; messages deleted since are left out. */
  readonly render: (saved: ReadonlyArray<SavedId>) => Effect.Effect<ReadonlyArray<SavedMessage>>
}>()("guildhall/SavedMessagesRepo") {
  static readonly layer = Layer.effect(
    SavedMessagesRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const render = Effect.fn("SavedMessagesRepo.render")(function*(saved: ReadonlyArray<SavedId>) {
        if (saved.length === 0) return []
        const rows = yield* sql<MessageRow & { readonly guild_id: string | null; readonly position: number }>`
          SELECT ${sql.literal(MESSAGE_COLUMNS)}, m.guild_id::text AS guild_id, s.position::int AS position
          FROM unnest(${idArray(saved.map((s) => s.channelId))}::bigint[], ${idArray(saved.map((s) => s.messageId))}::bigint[])
            WITH ORDINALITY AS s(channel_id, id, position)
          JOIN messages m ON m.channel_id = s.channel_id AND m.id = s.id
          ORDER BY s.position`
        const messages = yield* renderRows(rows)
        return rows.flatMap((row, i) => {
          const message = messages[i]
          return message === undefined ? [] : [{ channelId: row.channel_id, messageId: row.id, guildId: row.guild_id, message }]
        })
      }, Effect.provideService(SqlClient.SqlClient, sql), Effect.orDie)

      return SavedMessagesRepo.of({ render })
    })
  )
}
