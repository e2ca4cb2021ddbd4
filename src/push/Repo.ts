import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { randomBytes } from "node:crypto"

/** How many devices one user keeps subscribed; a new one pushes out the longest unrefreshed. */
export const MAX_SUBSCRIPTIONS = 50

export interface NewSubscription {
  readonly endpoint: string
  readonly p256dh: string
  readonly auth: string
  readonly userAgent: string | null
}

export interface StoredSubscription {
  readonly id: string
  readonly userAgent: string | null
}

/** The session was signed out between authentication and the insert. */
const isSessionGone = (error: SqlError) => error.reason._tag === "ConstraintError"

/**
 * Web Push subscriptions (schema/0008_relationships_push.sql). One per user
 * and endpoint: subscribing the same endpoint again refreshes its keys and
 * keeps its id. Every read and write names the owner, so nobody reaches
 * another user's subscriptions.
 */
export class PushRepo extends Context.Service<PushRepo, {
  /** The subscription's id; undefined when the session is gone. */
  readonly subscribe: (userId: string, sessionHash: Buffer, subscription: NewSubscription) => Effect.Effect<string | undefined>
  readonly list: (userId: string) => Effect.Effect<ReadonlyArray<StoredSubscription>>
  /** False when `userId` has no subscription `id`. */
  readonly remove: (userId: string, id: string) => Effect.Effect<boolean>
}>()("guildhall/PushRepo") {
  static readonly layer = Layer.effect(
    PushRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return PushRepo.of({
        subscribe: Effect.fn("PushRepo.subscribe")((userId, sessionHash, s) =>
          sql.withTransaction(Effect.gen(function*() {
            // Taken from the session row itself, so a session signed out meanwhile stores nothing.
            const rows = yield* sql<{ id: string }>`
              INSERT INTO push_subscriptions (id, user_id, session_hash, endpoint, p256dh, auth, user_agent)
              SELECT ${randomBytes(16).toString("hex")}, user_id, token_hash, ${s.endpoint}, ${s.p256dh}, ${s.auth}, ${s.userAgent}
              FROM sessions WHERE token_hash = ${sessionHash} AND user_id = ${userId}
              ON CONFLICT (user_id, endpoint) DO UPDATE
              SET session_hash = EXCLUDED.session_hash, p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth,
                  user_agent = COALESCE(EXCLUDED.user_agent, push_subscriptions.user_agent), updated_at = now()
              RETURNING id`
            const id = rows[0]?.id
            if (id === undefined) return undefined
            yield* sql`DELETE FROM push_subscriptions
                       WHERE user_id = ${userId} AND id NOT IN (
                         SELECT id FROM push_subscriptions WHERE user_id = ${userId}
                         ORDER BY updated_at DESC, id LIMIT ${MAX_SUBSCRIPTIONS})`
            return id
          })).pipe(
            Effect.catchIf(isSessionGone, () => Effect.succeed(undefined)),
            Effect.orDie
          )),
        list: Effect.fn("PushRepo.list")((userId) =>
          sql<{ id: string; user_agent: string | null }>`
            SELECT id, user_agent FROM push_subscriptions WHERE user_id = ${userId} ORDER BY created_at, id`.pipe(
            Effect.map((rows) => rows.map((row) => ({ id: row.id, userAgent: row.user_agent }))),
            Effect.orDie
          )),
        remove: Effect.fn("PushRepo.remove")((userId, id) =>
          sql`DELETE FROM push_subscriptions WHERE user_id = ${userId} AND id = ${id} RETURNING 1`.pipe(
            Effect.map((rows) => rows.length > 0),
            Effect.orDie
          ))
      })
    })
  )
}
