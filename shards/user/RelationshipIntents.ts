import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { UserPartialResponse } from "../../src/model/Users.ts"

/**
 * The other side of a two-sided relationship change (schema/0029_relationship_intents.sql).
 * The acting user's actor records it with its own side, in one transaction;
 * the other user's actor applies it and deletes it, in one transaction, under
 * the operation id the record is keyed by. Whoever delivers it (the request
 * that made it, or the shard processes' sweep) delivers a pair's records in
 * the order they were made, stopping at the first that fails: a later change
 * never overtakes an earlier one.
 */

/** What the acting user's change means to the other side (operations/Relationships.ts, `peerChanged`). */
export const PeerChangeKind = Schema.Literals(["request", "befriend", "unfriend", "withdraw", "block"])
export type PeerChangeKind = typeof PeerChangeKind.Type

/** The other side's write: who acted (`otherId`, as they are now: `user`) and what they did. */
export const PeerChange = Schema.Struct({ otherId: Schema.String, change: PeerChangeKind, user: UserPartialResponse })
export type PeerChange = typeof PeerChange.Type

const encodeChange = Schema.encodeSync(Schema.fromJsonString(PeerChange))
const decodeChange = Schema.decodeUnknownEffect(Schema.fromJsonString(PeerChange))

/** The operation id of the other side's write of the change made under `operationId`. */
export const peerOperationId = (operationId: string): string => `${operationId}:peer`

/** A recorded change not applied on the other side yet. */
export interface PendingIntent {
  readonly operationId: string
  readonly userId: string
  readonly peerId: string
  readonly change: PeerChange
}

/** Records the other side's change; run it in the transaction of the acting side's. */
export const recordIntent = (operationId: string, userId: string, peerId: string, change: PeerChange) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.asVoid(sql`INSERT INTO relationship_intents (operation_id, user_id, peer_id, change)
                      VALUES (${operationId}, ${userId}, ${peerId}, ${encodeChange(change)}::jsonb)`))

/** Forgets the change; run it in the transaction that applies it on the other side. */
export const settleIntent = (operationId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.asVoid(sql`DELETE FROM relationship_intents WHERE operation_id = ${operationId}`))

/** `userId`'s changes toward `peerId` not applied on the other side yet, oldest first. */
export const pendingIntents = (sql: SqlClient.SqlClient, userId: string, peerId: string) =>
  sql<{ operation_id: string; change: string }>`
    SELECT operation_id, change::text AS change FROM relationship_intents
    WHERE user_id = ${userId} AND peer_id = ${peerId} ORDER BY seq`.pipe(
    Effect.flatMap((rows) =>
      Effect.forEach(rows, (row) =>
        Effect.map(decodeChange(row.change), (change): PendingIntent => ({ operationId: row.operation_id, userId, peerId, change })))
    ),
    Effect.orDie
  )

/** Pairs with a change left pending for more than `graceSeconds`: their deliverer died, or is slow. */
export const overduePairs = (sql: SqlClient.SqlClient, graceSeconds: number, limit: number) =>
  sql<{ user_id: string; peer_id: string }>`
    SELECT user_id::text AS user_id, peer_id::text AS peer_id FROM relationship_intents
    WHERE created_at < now() - make_interval(secs => ${graceSeconds})
    GROUP BY user_id, peer_id ORDER BY min(seq) LIMIT ${limit}`.pipe(Effect.orDie)
