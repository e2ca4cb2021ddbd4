import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { isoTimestamp } from "../../platform/Timestamps.ts"
import type { MessageShredProgress } from "./Api.ts"

/** Some of a job's messages, all through one actor: a guild's, or a DM channel's (`dm`). */
export interface JobBatch {
  readonly ownerId: string
  readonly dm: boolean
  readonly entries: ReadonlyArray<{ readonly channelId: string; readonly messageId: string }>
}

/** A job claimed by this process. */
export interface ClaimedJob {
  readonly id: string
  readonly adminId: string
  readonly userId: string
}

interface JobRow {
  readonly status: MessageShredProgress["status"]
  readonly requested: number
  readonly total: number
  readonly processed: number
  readonly skipped: number
  readonly started_at: Date
  readonly completed_at: Date | null
  readonly failed_at: Date | null
  readonly error: string | null
}

const progressOf = (row: JobRow): MessageShredProgress => ({
  status: row.status,
  requested: row.requested,
  total: row.total,
  processed: row.processed,
  skipped: row.skipped,
  started_at: isoTimestamp(row.started_at),
  ...(row.completed_at === null ? {} : { completed_at: isoTimestamp(row.completed_at) }),
  ...(row.failed_at === null ? {} : { failed_at: isoTimestamp(row.failed_at) }),
  ...(row.error === null ? {} : { error: row.error })
})

/**
 * Operators' message jobs (schema/0036_admin_message_jobs.sql): a job row
 * with its progress and a row per message left to do. A process claims a job
 * for a lease (`FOR UPDATE SKIP LOCKED`, then claimed_until) and renews it
 * before each batch; a batch's rows go, with its counts, once the actor has
 * deleted its messages. A job whose claimer died is taken again when the lease
 * runs out and goes on with the rows still there (a batch whose deletes
 * committed but whose rows did not is looked at again: its messages are gone
 * by then and count as skipped).
 */
export class AdminMessageJobs extends Context.Service<AdminMessageJobs, {
  /** A shred of `entries`: those of unknown channels and repeats are skipped at once. */
  readonly createShred: (job: {
    readonly id: string
    readonly adminId: string
    readonly userId: string
    readonly entries: ReadonlyArray<{ readonly channel_id: string; readonly message_id: string }>
  }) => Effect.Effect<void>
  /** A delete-all of the author's messages up to now, guild and DM; how many. */
  readonly createDeleteAll: (job: { readonly id: string; readonly adminId: string; readonly userId: string }) => Effect.Effect<number>
  readonly claim: (leaseSeconds: number) => Effect.Effect<ClaimedJob | undefined>
  /** Extends the claim; false when the job is no longer running. */
  readonly renew: (jobId: string, leaseSeconds: number) => Effect.Effect<boolean>
  /** Up to `limit` of the job's rows, all of the first owner that has any; undefined when none is left. */
  readonly nextBatch: (jobId: string, limit: number) => Effect.Effect<JobBatch | undefined>
  /** The batch is through: its rows go, its counts are added. */
  readonly finishBatch: (jobId: string, batch: JobBatch, processed: number, skipped: number) => Effect.Effect<void>
  readonly complete: (jobId: string) => Effect.Effect<void>
  readonly fail: (jobId: string, error: string) => Effect.Effect<void>
  readonly progress: (jobId: string) => Effect.Effect<MessageShredProgress | undefined>
}>()("guildhall/AdminMessageJobs") {
  static readonly layer = Layer.effect(
    AdminMessageJobs,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const lease = (seconds: number) => sql`now() + make_interval(secs => ${seconds})`

      const createShred: AdminMessageJobs["Service"]["createShred"] = Effect.fn("AdminMessageJobs.createShred")(function*(job) {
        yield* sql`INSERT INTO admin_message_jobs (id, kind, admin_id, user_id, requested, total)
                   VALUES (${job.id}, 'shred', ${job.adminId}, ${job.userId}, ${job.entries.length}, 0)`
        const inserted = yield* sql<{ n: number }>`
          WITH asked AS (
            SELECT DISTINCT e.channel_id, e.message_id
            FROM jsonb_to_recordset(${JSON.stringify(job.entries)}::jsonb) AS e (channel_id bigint, message_id bigint)
          ), added AS (
            INSERT INTO admin_message_job_entries (job_id, owner_id, dm, channel_id, message_id)
            SELECT ${job.id}, coalesce(c.guild_id, c.id), c.guild_id IS NULL, a.channel_id, a.message_id
            FROM asked a JOIN channels c ON c.id = a.channel_id
            RETURNING 1
          )
          SELECT count(*)::int AS n FROM added`
        const total = inserted[0]?.n ?? 0
        yield* sql`UPDATE admin_message_jobs SET total = ${total}, skipped = requested - ${total} WHERE id = ${job.id}`
      }, sql.withTransaction, Effect.orDie)

      const createDeleteAll: AdminMessageJobs["Service"]["createDeleteAll"] = Effect.fn("AdminMessageJobs.createDeleteAll")(function*(job) {
        yield* sql`INSERT INTO admin_message_jobs (id, kind, admin_id, user_id, requested, total)
                   VALUES (${job.id}, 'delete_all', ${job.adminId}, ${job.userId}, 0, 0)`
        // One range of the messages_author index (author_id, guild_id, id).
        const inserted = yield* sql<{ n: number }>`
          WITH added AS (
            INSERT INTO admin_message_job_entries (job_id, owner_id, dm, channel_id, message_id)
            SELECT ${job.id}, coalesce(guild_id, channel_id), guild_id IS NULL, channel_id, id
            FROM messages WHERE author_id = ${job.userId}
            RETURNING 1
          )
          SELECT count(*)::int AS n FROM added`
        const total = inserted[0]?.n ?? 0
        yield* sql`UPDATE admin_message_jobs SET requested = ${total}, total = ${total} WHERE id = ${job.id}`
        return total
      }, sql.withTransaction, Effect.orDie)

      const claim = Effect.fn("AdminMessageJobs.claim")(function*(leaseSeconds: number) {
        const open = yield* sql<{ id: string; admin_id: string; user_id: string }>`
          SELECT id::text AS id, admin_id, user_id::text AS user_id FROM admin_message_jobs
          WHERE status = 'in_progress' AND (claimed_until IS NULL OR claimed_until < now())
          ORDER BY id LIMIT 1
          FOR UPDATE SKIP LOCKED`
        const job = open[0]
        if (job === undefined) return undefined
        yield* sql`UPDATE admin_message_jobs SET claimed_until = ${lease(leaseSeconds)} WHERE id = ${job.id}`
        return { id: job.id, adminId: job.admin_id, userId: job.user_id }
      }, sql.withTransaction, Effect.orDie)

      const renew = Effect.fn("AdminMessageJobs.renew")((jobId: string, leaseSeconds: number) =>
        sql`UPDATE admin_message_jobs SET claimed_until = ${lease(leaseSeconds)}
            WHERE id = ${jobId} AND status = 'in_progress' RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie))

      const nextBatch = Effect.fn("AdminMessageJobs.nextBatch")(function*(jobId: string, limit: number) {
        const first = yield* sql<{ owner_id: string; dm: boolean }>`
          SELECT owner_id::text AS owner_id, dm FROM admin_message_job_entries WHERE job_id = ${jobId}
          ORDER BY owner_id LIMIT 1`
        const owner = first[0]
        if (owner === undefined) return undefined
        const rows = yield* sql<{ channel_id: string; message_id: string }>`
          SELECT channel_id::text AS channel_id, message_id::text AS message_id FROM admin_message_job_entries
          WHERE job_id = ${jobId} AND owner_id = ${owner.owner_id}
          ORDER BY channel_id, message_id LIMIT ${limit}`
        return {
          ownerId: owner.owner_id,
          dm: owner.dm,
          entries: rows.map((r) => ({ channelId: r.channel_id, messageId: r.message_id }))
        }
      }, Effect.orDie)

      const finishBatch = Effect.fn("AdminMessageJobs.finishBatch")(function*(jobId: string, batch: JobBatch, processed: number, skipped: number) {
        const pairs = JSON.stringify(batch.entries.map((e) => ({ channel_id: e.channelId, message_id: e.messageId })))
        yield* sql`DELETE FROM admin_message_job_entries j
                   USING jsonb_to_recordset(${pairs}::jsonb) AS e (channel_id bigint, message_id bigint)
                   WHERE j.job_id = ${jobId} AND j.owner_id = ${batch.ownerId}
                     AND j.channel_id = e.channel_id AND j.message_id = e.message_id`
        yield* sql`UPDATE admin_message_jobs SET processed = processed + ${processed}, skipped = skipped + ${skipped}
                   WHERE id = ${jobId}`
      }, sql.withTransaction, Effect.orDie)

      const complete = Effect.fn("AdminMessageJobs.complete")((jobId: string) =>
        sql`UPDATE admin_message_jobs SET status = 'completed', completed_at = now(), claimed_until = NULL
            WHERE id = ${jobId}`.pipe(Effect.asVoid, Effect.orDie))

      const fail = Effect.fn("AdminMessageJobs.fail")((jobId: string, error: string) =>
        Effect.andThen(
          sql`UPDATE admin_message_jobs SET status = 'failed', failed_at = now(), error = ${error}, claimed_until = NULL
              WHERE id = ${jobId}`,
          sql`DELETE FROM admin_message_job_entries WHERE job_id = ${jobId}`
        ).pipe(sql.withTransaction, Effect.asVoid, Effect.orDie))

      const progress = Effect.fn("AdminMessageJobs.progress")((jobId: string) =>
        sql<JobRow>`SELECT status, requested, total, processed, skipped, started_at, completed_at, failed_at, error
                    FROM admin_message_jobs WHERE id = ${jobId}`.pipe(
          Effect.map((rows) => {
            const row = rows[0]
            return row === undefined ? undefined : progressOf(row)
          }),
          Effect.orDie
        ))

      return AdminMessageJobs.of({ createShred, createDeleteAll, claim, renew, nextBatch, finishBatch, complete, fail, progress })
    })
  )
}
