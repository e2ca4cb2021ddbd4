import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/** A due scheduled message, leased by this process. */
export interface DueMessage {
  readonly id: string
  readonly userId: string
}

/**
 * The sweep's side of scheduled messages in Postgres: finding due ones and
 * leasing them. Everything else about them (what, when, status) is their
 * author's actor's (shards/user/operations/ScheduledMessages.ts). A row is
 * leased (claimed_until) under `FOR UPDATE SKIP LOCKED`, so processes sweeping
 * at once never take the same row, and a row whose claimer died is taken
 * again once its lease is over.
 */
export class ScheduledMessagesRepo extends Context.Service<ScheduledMessagesRepo, {
  /** Leases up to `limit` due messages for `leaseSeconds`. */
  readonly claimDue: (limit: number, leaseSeconds: number) => Effect.Effect<ReadonlyArray<DueMessage>>
}>()("guildhall/ScheduledMessagesRepo") {
  static readonly layer = Layer.effect(
    ScheduledMessagesRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const claimDue = Effect.fn("ScheduledMessagesRepo.claimDue")(function*(limit: number, leaseSeconds: number) {
        const due = yield* sql<{ id: string; user_id: string }>`
          SELECT id::text AS id, user_id::text AS user_id FROM scheduled_messages
          WHERE status = 'scheduled' AND scheduled_at <= now() AND (claimed_until IS NULL OR claimed_until < now())
          ORDER BY scheduled_at LIMIT ${limit}
          FOR UPDATE SKIP LOCKED`
        if (due.length > 0) {
          yield* sql`UPDATE scheduled_messages SET claimed_until = now() + make_interval(secs => ${leaseSeconds})
                     WHERE id IN ${sql.in(due.map((m) => m.id))}`
        }
        return due.map((row): DueMessage => ({ id: row.id, userId: row.user_id }))
      }, sql.withTransaction, Effect.orDie)

      return ScheduledMessagesRepo.of({ claimDue })
    })
  )
}
