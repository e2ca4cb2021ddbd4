import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/** A self-service deletion claimed by this process: whose messages, up to which id. */
export interface ClaimedDeletion {
  readonly userId: string
  readonly cutoffId: string
}

/**
 * The jobs of POST /users/@me/messages/delete, one row per user. A process
 * claims a due job for a lease (`FOR UPDATE SKIP LOCKED`, then
 * claimed_until) and renews it after every batch; a job whose claimer died is
 * taken again when the lease runs out and goes on where it stopped (the
 * messages still there are what is left).
 */
export class SelfDeletionRepo extends Context.Service<SelfDeletionRepo, {
  readonly request: (job: {
    readonly userId: string
    readonly cutoffId: string
    readonly startsAt: number
    readonly channelCount: number
    readonly messageCount: number
  }) => Effect.Effect<void>
  /** Whether there was a job to cancel. */
  readonly cancel: (userId: string) => Effect.Effect<boolean>
  readonly claimDue: (leaseSeconds: number) => Effect.Effect<ClaimedDeletion | undefined>
  /** Extends the claim; false when the job is gone (cancelled meanwhile). */
  readonly renew: (userId: string, leaseSeconds: number) => Effect.Effect<boolean>
  readonly finish: (userId: string) => Effect.Effect<void>
}>()("guildhall/SelfDeletionRepo") {
  static readonly layer = Layer.effect(
    SelfDeletionRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const lease = (seconds: number) => sql`now() + make_interval(secs => ${seconds})`

      const request: SelfDeletionRepo["Service"]["request"] = Effect.fn("SelfDeletionRepo.request")((job) =>
        sql`INSERT INTO message_deletion_jobs (user_id, cutoff_id, scheduled_at, channel_count, message_count)
            VALUES (${job.userId}, ${job.cutoffId}, ${new Date(job.startsAt).toISOString()}, ${job.channelCount}, ${job.messageCount})
            ON CONFLICT (user_id) DO UPDATE SET cutoff_id = EXCLUDED.cutoff_id, scheduled_at = EXCLUDED.scheduled_at,
              channel_count = EXCLUDED.channel_count, message_count = EXCLUDED.message_count`.pipe(Effect.asVoid, Effect.orDie))

      const cancel = Effect.fn("SelfDeletionRepo.cancel")((userId: string) =>
        sql`DELETE FROM message_deletion_jobs WHERE user_id = ${userId} RETURNING user_id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ))

      const claimDue = Effect.fn("SelfDeletionRepo.claimDue")(function*(leaseSeconds: number) {
        const due = yield* sql<{ user_id: string; cutoff_id: string }>`
          SELECT user_id::text AS user_id, cutoff_id::text AS cutoff_id FROM message_deletion_jobs
          WHERE scheduled_at <= now() AND (claimed_until IS NULL OR claimed_until < now())
          ORDER BY scheduled_at LIMIT 1
          FOR UPDATE SKIP LOCKED`
        const job = due[0]
        if (job === undefined) return undefined
        yield* sql`UPDATE message_deletion_jobs SET claimed_until = ${lease(leaseSeconds)} WHERE user_id = ${job.user_id}`
        return { userId: job.user_id, cutoffId: job.cutoff_id }
      }, sql.withTransaction, Effect.orDie)

      const renew = Effect.fn("SelfDeletionRepo.renew")((userId: string, leaseSeconds: number) =>
        sql`UPDATE message_deletion_jobs SET claimed_until = ${lease(leaseSeconds)} WHERE user_id = ${userId}
            RETURNING user_id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie))

      const finish = Effect.fn("SelfDeletionRepo.finish")((userId: string) =>
        sql`DELETE FROM message_deletion_jobs WHERE user_id = ${userId}`.pipe(Effect.asVoid, Effect.orDie))

      return SelfDeletionRepo.of({ request, cancel, claimDue, renew, finish })
    })
  )
}
