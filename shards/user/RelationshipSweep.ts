import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { travellingCommand } from "./operations/index.ts"
import { peerChanged } from "./operations/Relationships.ts"
import { User } from "./Protocol.ts"
import { overduePairs, pendingIntents, type PendingIntent } from "./RelationshipIntents.ts"

/** How long a change may wait for its other side before the sweep takes it: its own request delivers it at once. */
const GRACE_SECONDS = 3
const EVERY = "5 seconds"
const PAIRS_PER_RUN = 100
/** A delivery that waits longer (the other user's shard moving) is tried again on the next run. */
const DELIVERY_TIMEOUT = "10 seconds"

/**
 * Finishes relationship changes whose other side was left undone
 * (RelationshipIntents.ts): the request that made one died between the two
 * writes, or its process did. Every process that hosts actors runs it, at
 * start and every few seconds; the operation ids make their deliveries one.
 */
export const RelationshipSweep = Layer.effectDiscard(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const users = yield* User.client

  const deliver = (intent: PendingIntent) =>
    Effect.flatMap(travellingCommand(peerChanged, peerChanged.command.make(intent.change)), (command) =>
      users(intent.peerId).Write({ operationId: intent.operationId, actorId: intent.userId, now: Date.now(), command })).pipe(
      Effect.timeout(DELIVERY_TIMEOUT)
    )

  /** A pair's pending changes in the order they were made; the first that fails stops the rest. */
  const finish = (userId: string, peerId: string) =>
    Effect.flatMap(pendingIntents(sql, userId, peerId), (pending) => Effect.forEach(pending, deliver, { discard: true })).pipe(
      Effect.catchCause((cause) => Effect.logWarning("relationship sweep: a change's other side is still pending", cause))
    )

  const run = Effect.flatMap(overduePairs(sql, GRACE_SECONDS, PAIRS_PER_RUN), (pairs) =>
    Effect.forEach(pairs, ({ user_id, peer_id }) => finish(user_id, peer_id), { concurrency: 4, discard: true }))

  yield* run.pipe(Effect.andThen(Effect.sleep(EVERY)), Effect.forever, Effect.forkScoped)
}))
