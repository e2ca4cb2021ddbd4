import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { idArray } from "../../../shards/guild/messages/MessageRows.ts"
import { emojiJson } from "../../../shards/guild/messages/WindowReactions.ts"
import type { ReactionColumns } from "../../../shards/guild/messages/ReactionRows.ts"
import { toUserPartial, type UserRow } from "../../model/Users.ts"
import type { UserPartialResponse } from "../../model/Users.ts"
import type { MessageReactionResponse, MessageResponse } from "../../model/Messages.ts"

interface SummaryRow extends ReactionColumns {
  readonly count: number
  readonly me: boolean
}

/**
 * Reactions as Postgres has them, for messages older than the guild actor's
 * windows (the actor serves the others from memory). Callers check
 * permissions with the actor first.
 */
export class ReactionsRepo extends Context.Service<ReactionsRepo, {
  /** The messages with their `reactions` as `viewerId` sees them: one grouped scan of the reactions key. */
  readonly withReactions: (
    messages: ReadonlyArray<MessageResponse>,
    viewerId: string
  ) => Effect.Effect<ReadonlyArray<MessageResponse>>
  /** Who reacted with `emojiKey` to a message, in id order after `after`. */
  readonly userIds: (
    channelId: string,
    messageId: string,
    emojiKey: string,
    after: string | undefined,
    limit: number
  ) => Effect.Effect<ReadonlyArray<string>>
  /** The users of `ids` in that order (users deleted since are left out). */
  readonly users: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<UserPartialResponse>>
}>()("guildhall/ReactionsRepo") {
  static readonly layer = Layer.effect(
    ReactionsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const withReactions = Effect.fn("ReactionsRepo.withReactions")(function*(messages: ReadonlyArray<MessageResponse>, viewerId: string) {
        if (messages.length === 0) return messages
        // A message's emojis in the order of their first use; a custom emoji shows the name it was first used with.
        const rows = yield* sql<SummaryRow>`
          SELECT r.channel_id::text AS channel_id, r.message_id::text AS message_id, r.emoji_key,
                 min(r.emoji_id)::text AS emoji_id, (array_agg(r.emoji_name ORDER BY r.created_at))[1] AS emoji_name,
                 bool_or(r.animated) AS animated, count(*)::int AS count, bool_or(r.user_id = ${viewerId}) AS me
          FROM unnest(${idArray(messages.map((m) => m.channel_id))}::bigint[], ${idArray(messages.map((m) => m.id))}::bigint[])
            AS w(channel_id, message_id)
          JOIN message_reactions r ON r.channel_id = w.channel_id AND r.message_id = w.message_id
          GROUP BY r.channel_id, r.message_id, r.emoji_key
          ORDER BY min(r.created_at), r.emoji_key`
        const byMessage = new Map<string, Array<MessageReactionResponse>>()
        for (const r of rows) {
          const key = `${r.channel_id}/${r.message_id}`
          const list = byMessage.get(key) ?? []
          list.push({ emoji: emojiJson({ id: r.emoji_id, name: r.emoji_name, animated: r.animated }), count: r.count, me: r.me })
          byMessage.set(key, list)
        }
        return messages.map((m) => {
          const reactions = byMessage.get(`${m.channel_id}/${m.id}`)
          return reactions === undefined ? m : { ...m, reactions }
        })
      }, Effect.orDie)

      const userIds = Effect.fn("ReactionsRepo.userIds")((
        channelId: string,
        messageId: string,
        emojiKey: string,
        after: string | undefined,
        limit: number
      ) =>
        Effect.map(
          sql<{ readonly user_id: string }>`
            SELECT user_id::text AS user_id FROM message_reactions
            WHERE channel_id = ${channelId} AND message_id = ${messageId} AND emoji_key = ${emojiKey} AND user_id > ${after ?? "0"}
            ORDER BY user_id LIMIT ${limit}`,
          (rows) => rows.map((r) => r.user_id)
        ).pipe(Effect.orDie))

      const users = Effect.fn("ReactionsRepo.users")(function*(ids: ReadonlyArray<string>) {
        if (ids.length === 0) return []
        const rows = yield* sql<UserRow>`SELECT * FROM users WHERE id IN ${sql.in(ids)}`
        const byId = new Map(rows.map((u) => [u.id, toUserPartial(u)]))
        return ids.flatMap((id) => byId.get(id) ?? [])
      }, Effect.orDie)

      return ReactionsRepo.of({ withReactions, userIds, users })
    })
  )
}
