import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { unreadMassMentions } from "../messages/MassMentions.ts"
import { visibleChannel } from "../channels/ChannelAccess.ts"
import { unchanged, write } from "../Definitions.ts"

/** One channel read up to a message; `mentionCount` as the client counts it (a manual "mark unread"), else counted here. */
const Ack = Schema.Struct({
  channelId: Schema.String,
  messageId: Schema.String,
  mentionCount: Schema.optional(Schema.Int),
  manual: Schema.optional(Schema.Boolean)
})
type Ack = typeof Ack.Type

/**
 * Stores how far the user read the channel. The stored count is of direct
 * mentions; role and @everyone mentions after the acked message are added when
 * read states are read (src/messages/MassMentions.ts). Without a count from the
 * client, the unread direct mentions are the messages after the acked one that
 * ping the user (and were not dismissed): a range of the channel's key, checked
 * against the mention index, so an ack costs the unread part of one channel. A
 * client's count is of every kind of mention, so the mass mentions counted on
 * read are taken off it here, for the reader to see the client's number.
 */
export const storeAck = (userId: string, ack: Ack) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const count = ack.mentionCount === undefined
      ? sql`(
        SELECT count(*)::integer FROM messages m
        WHERE m.channel_id = ${ack.channelId} AND m.id > ${ack.messageId} AND m.mention_user_ids <> '{}'
          AND m.mention_user_ids @> ARRAY[${userId}::bigint] AND m.author_id <> ${userId}
          AND NOT EXISTS (SELECT 1 FROM mention_dismissals d WHERE d.user_id = ${userId} AND d.message_id = m.id))`
      : sql`greatest(${ack.mentionCount}::integer - ${
        unreadMassMentions(sql, userId, sql`${ack.channelId}::bigint`, sql`${ack.messageId}::bigint`)
      }, 0)`
    return Effect.asVoid(sql`
      INSERT INTO read_states (user_id, channel_id, last_message_id, mention_count, updated_at)
      VALUES (${userId}, ${ack.channelId}, ${ack.messageId}, ${count}, now())
      ON CONFLICT (user_id, channel_id) DO UPDATE SET last_message_id = EXCLUDED.last_message_id,
        mention_count = EXCLUDED.mention_count, updated_at = now()`)
  })

/**
 * POST /channels/{id}/messages/{id}/ack and POST /read-states/ack-bulk (the
 * channels of one guild): VIEW_CHANNEL in each. The user's own sessions hear
 * MESSAGE_ACK (Audience.ts sends it to `user_id` alone).
 */
export const ackMessages = write(
  "AckMessages",
  { acks: Schema.Array(Ack) },
  Schema.Null,
  (state, { acks }, context) =>
    Effect.map(Effect.forEach(acks, (ack) => visibleChannel(state, context.actorId, ack.channelId)), () => ({
      ...unchanged(state, null),
      persist: Effect.forEach(acks, (ack) => storeAck(context.actorId, ack), { discard: true }),
      events: acks.map((ack) => ({
        type: "MESSAGE_ACK",
        data: {
          channel_id: ack.channelId,
          message_id: ack.messageId,
          guild_id: context.guildId,
          user_id: context.actorId,
          ...(ack.manual === undefined ? {} : { manual: ack.manual }),
          ...(ack.mentionCount === undefined ? {} : { mention_count: ack.mentionCount })
        }
      }))
    }))
)

export const messageAckWrites = [ackMessages] as const
