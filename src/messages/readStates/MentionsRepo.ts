import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { idArray } from "../../../shards/guild/messages/MessageRows.ts"
import { MESSAGE_COLUMNS, type MessageRow, renderRows } from "../../../shards/guild/messages/StoredMessages.ts"
import type { MessageResponse } from "../../model/Messages.ts"

export interface MentionQuery {
  readonly userId: string
  /** The channels the user may read (MessageVisibility): nothing else is looked at. */
  readonly channelIds: ReadonlyArray<string>
  /** The user's roles in those guilds, for role mentions (`roles`). */
  readonly roleIds: ReadonlyArray<string>
  readonly roles: boolean
  readonly everyone: boolean
  readonly before: string | undefined
  readonly limit: number
}

/**
 * Messages that ping a user (GET /users/@me/mentions): direct mentions through
 * the partial GIN index on mention_user_ids, role and @everyone mentions
 * through the partial index of mass mentions (schema/0024), newest first,
 * minus the ones the user dismissed and their own.
 */
export class MentionsRepo extends Context.Service<MentionsRepo, {
  readonly list: (query: MentionQuery) => Effect.Effect<ReadonlyArray<MessageResponse>>
  /**
   * Removes a mention from the user's list; false when no message pings them
   * with that id in those channels. A direct mention still unread also leaves
   * the channel's unread mention count.
   */
  readonly dismiss: (userId: string, messageId: string, channelIds: ReadonlyArray<string>, roleIds: ReadonlyArray<string>) => Effect.Effect<boolean>
}>()("guildhall/MentionsRepo") {
  static readonly layer = Layer.effect(
    MentionsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const columns = sql.literal(MESSAGE_COLUMNS)

      const list = Effect.fn("MentionsRepo.list")(function*(q: MentionQuery) {
        if (q.channelIds.length === 0) return []
        const rows = yield* sql<MessageRow>`
          SELECT ${columns} FROM messages m
          WHERE m.channel_id = ANY(${idArray(q.channelIds)}::bigint[])
            AND m.id < ${q.before ?? "9223372036854775807"}::bigint
            AND m.author_id <> ${q.userId}
            AND ((m.mention_user_ids <> '{}' AND m.mention_user_ids @> ARRAY[${q.userId}::bigint])
              OR (${q.everyone} AND m.mention_everyone)
              OR (${q.roles} AND m.mention_role_ids <> '{}' AND m.mention_role_ids && ${idArray(q.roleIds)}::bigint[]))
            AND NOT EXISTS (SELECT 1 FROM mention_dismissals d WHERE d.user_id = ${q.userId} AND d.message_id = m.id)
          ORDER BY m.id DESC LIMIT ${q.limit}`
        return yield* renderRows(rows)
      }, Effect.orDie, Effect.provideService(SqlClient.SqlClient, sql))

      const dismiss = Effect.fn("MentionsRepo.dismiss")(function*(
        userId: string,
        messageId: string,
        channelIds: ReadonlyArray<string>,
        roleIds: ReadonlyArray<string>
      ) {
        if (channelIds.length === 0) return false
        const found = yield* sql<{ channel_id: string; direct: boolean }>`
          SELECT m.channel_id::text AS channel_id,
            (m.mention_user_ids <> '{}' AND m.mention_user_ids @> ARRAY[${userId}::bigint]) AS direct
          FROM messages m
          WHERE m.channel_id = ANY(${idArray(channelIds)}::bigint[]) AND m.id = ${messageId}
            AND ((m.mention_user_ids <> '{}' AND m.mention_user_ids @> ARRAY[${userId}::bigint])
              OR m.mention_everyone OR (m.mention_role_ids <> '{}' AND m.mention_role_ids && ${idArray(roleIds)}::bigint[]))`
        const [message] = found
        if (message === undefined) return false
        yield* sql`
          WITH dismissed AS (
            INSERT INTO mention_dismissals (user_id, message_id) VALUES (${userId}, ${messageId})
            ON CONFLICT DO NOTHING RETURNING message_id)
          UPDATE read_states SET mention_count = greatest(mention_count - 1, 0)
          WHERE ${message.direct} AND user_id = ${userId} AND channel_id = ${message.channel_id}
            AND last_message_id < ${messageId} AND EXISTS (SELECT 1 FROM dismissed)`
        return true
      }, Effect.provideService(SqlClient.SqlClient, sql), Effect.orDie)

      return MentionsRepo.of({ list, dismiss })
    })
  )
}
