import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/**
 * What the push routes ask Postgres themselves: the subscriptions are the
 * user's actor's (shards/user/operations/PushSubscriptions.ts).
 */
export class PushRepo extends Context.Service<PushRepo, {
  /** Whether the session is still signed in (authentication may have found it in its cache). */
  readonly sessionExists: (userId: string, sessionHash: Buffer) => Effect.Effect<boolean>
}>()("guildhall/PushRepo") {
  static readonly layer = Layer.effect(
    PushRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return PushRepo.of({
        sessionExists: Effect.fn("PushRepo.sessionExists")((userId, sessionHash) =>
          sql`SELECT 1 FROM sessions WHERE token_hash = ${sessionHash} AND user_id = ${userId}`.pipe(
            Effect.map((rows) => rows.length > 0),
            Effect.orDie
          ))
      })
    })
  )
}
