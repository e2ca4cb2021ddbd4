import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { Snowflake } from "../../model/Ids.ts"
import { readableMassMentions } from "./ReadableMentions.ts"
import type { ReadableGuild } from "../Visibility.ts"

/** How far the user has read one channel (ReadStateResponse of the reference; `id` is the channel's). */
export const ReadStateResponse = Schema.Struct({
  id: Snowflake,
  mention_count: Schema.Number,
  last_message_id: Schema.NullOr(Snowflake),
  last_pin_timestamp: Schema.NullOr(Schema.String)
})
export type ReadStateResponse = typeof ReadStateResponse.Type

interface ReadStateRow {
  readonly id: string
  readonly mention_count: number
  readonly last_message_id: string | null
  readonly last_pin_timestamp: Date | string | null
}

const isoOrNull = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString())

/**
 * The read states a session starts with (READY's `read_state`): messages read and pins seen, per channel.
 * A channel's `mention_count` is its stored count of direct mentions plus its unread role and
 * @everyone mentions, counted here (ReadableMentions.ts) in the channels of `readable` only: a
 * row left in a channel the user can no longer read keeps its direct mentions alone. A channel
 * of `readable` the user never opened has no stored row, yet its role and @everyone mentions
 * since they joined count too: it is listed, with no last message, when it has any.
 */
export class ReadStatesRepo extends Context.Service<ReadStatesRepo, {
  /** `readable`: the channels the user may read now (MessageVisibility), the only ones whose role and @everyone mentions count. */
  readonly listFor: (userId: string, readable: ReadonlyArray<ReadableGuild>) => Effect.Effect<ReadonlyArray<ReadStateResponse>>
}>()("guildhall/ReadStatesRepo") {
  static readonly layer = Layer.effect(
    ReadStatesRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return ReadStatesRepo.of({
        listFor: Effect.fn("ReadStatesRepo.listFor")((userId, readable) =>
          sql<ReadStateRow>`
            SELECT coalesce(r.channel_id, p.channel_id, u.channel_id)::text AS id,
                   coalesce(r.mention_count, 0) + coalesce(u.mentions, 0) AS mention_count,
                   r.last_message_id::text AS last_message_id, p.acked_at AS last_pin_timestamp
            FROM (SELECT * FROM read_states WHERE user_id = ${userId}) r
            FULL JOIN (SELECT * FROM channel_pin_acks WHERE user_id = ${userId}) p ON p.channel_id = r.channel_id
            FULL JOIN (${readableMassMentions(sql, userId, readable)}) u
              ON u.channel_id = coalesce(r.channel_id, p.channel_id)`.pipe(
            Effect.map((rows) =>
              rows.map((row) => ({
                id: row.id,
                mention_count: Number(row.mention_count),
                last_message_id: row.last_message_id,
                last_pin_timestamp: isoOrNull(row.last_pin_timestamp)
              }))
            ),
            Effect.orDie
          ))
      })
    })
  )
}
