import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import { isoTimestamp, isoTimestampOrNull } from "../../platform/Timestamps.ts"
import type { CreateSystemDmJobRequest, SystemDmJobResponse, SystemDmJobStatus } from "./Api.ts"

/** Jobs a listing shows at most, newest first. */
const LISTED = 100

/** A job claimed by this process. */
export interface ClaimedSystemDmJob {
  readonly id: string
  readonly content: string
}

/** A user still to message, with the send's idempotency key. */
export interface SystemDmTarget {
  readonly userId: string
  readonly operationId: string
}

interface JobRow {
  readonly id: string
  readonly content: string
  readonly created_at: Date
  readonly approved_at: Date | null
  readonly excluded_guild_ids: ReadonlyArray<string>
  readonly target_count: number
  readonly sent_count: number
  readonly failed_count: number
  readonly last_error: string | null
  readonly registration_start: Date | null
  readonly registration_end: Date | null
  readonly status: SystemDmJobStatus
}

const JOB_COLUMNS = `id::text AS id, content, created_at, approved_at, excluded_guild_ids::text[] AS excluded_guild_ids,
  target_count, sent_count, failed_count, last_error, registration_start, registration_end, status`

const responseOf = (row: JobRow): SystemDmJobResponse => ({
  job_id: row.id,
  content: row.content,
  created_at: isoTimestamp(row.created_at),
  approved_at: isoTimestampOrNull(row.approved_at),
  excluded_guild_ids: row.excluded_guild_ids,
  target_count: row.target_count,
  sent_count: row.sent_count,
  failed_count: row.failed_count,
  last_error: row.last_error,
  registration_start: isoTimestampOrNull(row.registration_start),
  registration_end: isoTimestampOrNull(row.registration_end),
  status: row.status
})

/**
 * System DM jobs (schema/0042): the job row with its counts and, while it runs,
 * a row per user left to message. A process claims an approved or running job
 * for a lease (`FOR UPDATE SKIP LOCKED`, then claimed_until) and renews it
 * before each batch. The first claim lists the targets (the job's filters
 * applied once, so users registering meanwhile are not added).
 *
 * Sending twice is ruled out thus: a batch's operation ids are committed on its
 * target rows before any of them is sent (`prepareBatch`), and a send goes to
 * the DM channel's actor under its target's operation id. The actor commits a
 * message together with the record of its operation id (actor_operations), and
 * answers a write under a recorded id with the recorded reply, acting no
 * further. A target's row goes, and its count is added, only after its send was
 * answered (`finishTarget`, one transaction). So whatever a crash interrupts, a
 * resumed job finds the target's row with the same operation id, and its send
 * is either the first (nothing committed) or answered from the record (kept for
 * good: nothing prunes actor_operations). Two processes on one job (a lease run
 * out under a slow batch) send under the same ids too, and a row is counted by
 * whichever removes it.
 */
export class SystemDmJobs extends Context.Service<SystemDmJobs, {
  readonly create: (job: { readonly id: string; readonly adminId: string; readonly request: CreateSystemDmJobRequest }) => Effect.Effect<SystemDmJobResponse>
  readonly list: Effect.Effect<ReadonlyArray<SystemDmJobResponse>>
  readonly find: (jobId: string) => Effect.Effect<SystemDmJobResponse | undefined>
  /** pending → approved; undefined when the job is not pending (or unknown). */
  readonly approve: (jobId: string, adminId: string) => Effect.Effect<SystemDmJobResponse | undefined>
  readonly claim: (leaseSeconds: number) => Effect.Effect<ClaimedSystemDmJob | undefined>
  /** Extends the claim; false when the job is no longer running. */
  readonly renew: (jobId: string, leaseSeconds: number) => Effect.Effect<boolean>
  /** Up to `limit` targets left, each with an operation id committed before this returns. */
  readonly prepareBatch: (jobId: string, limit: number, newIds: () => string) => Effect.Effect<ReadonlyArray<SystemDmTarget>>
  /** The target is through: its row goes, and `sent` or `failed` counts it (with the error). */
  readonly finishTarget: (jobId: string, userId: string, outcome: { readonly sent: true } | { readonly sent: false; readonly error: string }) => Effect.Effect<void>
  readonly complete: (jobId: string) => Effect.Effect<void>
  readonly fail: (jobId: string, error: string) => Effect.Effect<void>
  /** The system user: the oldest account marked `system`, made the first time one is needed. */
  readonly systemUser: (newId: string) => Effect.Effect<string>
}>()("guildhall/SystemDmJobs") {
  static readonly layer = Layer.effect(
    SystemDmJobs,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const lease = (seconds: number) => sql`now() + make_interval(secs => ${seconds})`

      /** The users a job's filters pick: people (no bots, no system accounts) registered in the range, in none of the guilds. */
      const targets = (filters: {
        readonly registration_start: string | Date | null
        readonly registration_end: string | Date | null
        readonly excluded_guild_ids: ReadonlyArray<string>
      }): Fragment =>
        sql`SELECT u.id FROM users u
            WHERE NOT u.bot AND NOT u.system
              AND ${filters.registration_start === null ? sql`TRUE` : sql`u.created_at >= ${filters.registration_start}`}
              AND ${filters.registration_end === null ? sql`TRUE` : sql`u.created_at <= ${filters.registration_end}`}
              AND NOT EXISTS (SELECT 1 FROM guild_members m
                              WHERE m.user_id = u.id AND m.guild_id = ANY(${[...filters.excluded_guild_ids]}::bigint[]))`

      const find = Effect.fn("SystemDmJobs.find")((jobId: string) =>
        sql<JobRow>`SELECT ${sql.literal(JOB_COLUMNS)} FROM system_dm_jobs WHERE id = ${jobId}`.pipe(
          Effect.map(([row]) => (row === undefined ? undefined : responseOf(row))),
          Effect.orDie
        ))

      const create = Effect.fn("SystemDmJobs.create")(function*(job: {
        readonly id: string
        readonly adminId: string
        readonly request: CreateSystemDmJobRequest
      }) {
        const filters = {
          registration_start: job.request.registration_start ?? null,
          registration_end: job.request.registration_end ?? null,
          excluded_guild_ids: [...new Set(job.request.excluded_guild_ids ?? [])]
        }
        const [estimate] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM (${targets(filters)}) t`
        yield* sql`INSERT INTO system_dm_jobs (id, content, created_by, excluded_guild_ids, registration_start, registration_end, target_count)
                   VALUES (${job.id}, ${job.request.content}, ${job.adminId}, ${filters.excluded_guild_ids}::bigint[],
                           ${filters.registration_start}, ${filters.registration_end}, ${estimate?.n ?? 0})`
        const made = yield* find(job.id)
        if (made === undefined) return yield* Effect.die(new Error(`system DM job ${job.id} vanished`))
        return made
      }, Effect.orDie)

      const list = sql<JobRow>`SELECT ${sql.literal(JOB_COLUMNS)} FROM system_dm_jobs ORDER BY id DESC LIMIT ${LISTED}`.pipe(
        Effect.map((rows) => rows.map(responseOf)),
        Effect.orDie,
        Effect.withSpan("SystemDmJobs.list")
      )

      const approve = Effect.fn("SystemDmJobs.approve")(function*(jobId: string, adminId: string) {
        const updated = yield* sql`UPDATE system_dm_jobs SET status = 'approved', approved_at = now(), approved_by = ${adminId}
                                   WHERE id = ${jobId} AND status = 'pending' RETURNING id`
        return updated.length === 0 ? undefined : yield* find(jobId)
      }, Effect.orDie)

      /** The job's targets listed, its count made exact: once, by the first claim. */
      const listTargets = (jobId: string) =>
        Effect.gen(function*() {
          const [job] = yield* sql<{ registration_start: Date | null; registration_end: Date | null; excluded_guild_ids: ReadonlyArray<string> }>`
            SELECT registration_start, registration_end, excluded_guild_ids::text[] AS excluded_guild_ids
            FROM system_dm_jobs WHERE id = ${jobId}`
          if (job === undefined) return
          const [listed] = yield* sql<{ n: number }>`
            WITH added AS (INSERT INTO system_dm_job_targets (job_id, user_id) SELECT ${jobId}, t.id FROM (${targets(job)}) t RETURNING 1)
            SELECT count(*)::int AS n FROM added`
          yield* sql`UPDATE system_dm_jobs SET status = 'running', target_count = ${listed?.n ?? 0} WHERE id = ${jobId}`
        })

      const claim = Effect.fn("SystemDmJobs.claim")(function*(leaseSeconds: number) {
        const open = yield* sql<{ id: string; content: string; status: SystemDmJobStatus }>`
          SELECT id::text AS id, content, status FROM system_dm_jobs
          WHERE status IN ('approved', 'running') AND (claimed_until IS NULL OR claimed_until < now())
          ORDER BY id LIMIT 1
          FOR UPDATE SKIP LOCKED`
        const job = open[0]
        if (job === undefined) return undefined
        if (job.status === "approved") yield* listTargets(job.id)
        yield* sql`UPDATE system_dm_jobs SET claimed_until = ${lease(leaseSeconds)} WHERE id = ${job.id}`
        return { id: job.id, content: job.content }
      }, sql.withTransaction, Effect.orDie)

      const renew = Effect.fn("SystemDmJobs.renew")((jobId: string, leaseSeconds: number) =>
        sql`UPDATE system_dm_jobs SET claimed_until = ${lease(leaseSeconds)}
            WHERE id = ${jobId} AND status = 'running' RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie))

      const prepareBatch = Effect.fn("SystemDmJobs.prepareBatch")(function*(jobId: string, limit: number, newIds: () => string) {
        const rows = yield* sql<{ user_id: string; operation_id: string | null }>`
          SELECT user_id::text AS user_id, operation_id::text AS operation_id FROM system_dm_job_targets
          WHERE job_id = ${jobId} ORDER BY user_id LIMIT ${limit} FOR UPDATE`
        const batch = rows.map((r) => ({ userId: r.user_id, operationId: r.operation_id ?? newIds(), fresh: r.operation_id === null }))
        const fresh = batch.filter((t) => t.fresh)
        if (fresh.length > 0) {
          const pairs = JSON.stringify(fresh.map((t) => ({ user_id: t.userId, operation_id: t.operationId })))
          yield* sql`UPDATE system_dm_job_targets t SET operation_id = p.operation_id
                     FROM jsonb_to_recordset(${pairs}::jsonb) AS p (user_id bigint, operation_id bigint)
                     WHERE t.job_id = ${jobId} AND t.user_id = p.user_id`
        }
        return batch.map(({ userId, operationId }) => ({ userId, operationId }))
      }, sql.withTransaction, Effect.orDie)

      const finishTarget = Effect.fn("SystemDmJobs.finishTarget")(function*(
        jobId: string,
        userId: string,
        outcome: { readonly sent: true } | { readonly sent: false; readonly error: string }
      ) {
        const gone = yield* sql`DELETE FROM system_dm_job_targets WHERE job_id = ${jobId} AND user_id = ${userId} RETURNING 1`
        // Another process finished it first (its lease ran out meanwhile): counted once.
        if (gone.length === 0) return
        yield* outcome.sent
          ? sql`UPDATE system_dm_jobs SET sent_count = sent_count + 1 WHERE id = ${jobId}`
          : sql`UPDATE system_dm_jobs SET failed_count = failed_count + 1, last_error = ${outcome.error} WHERE id = ${jobId}`
      }, sql.withTransaction, Effect.orDie)

      const complete = Effect.fn("SystemDmJobs.complete")((jobId: string) =>
        sql`UPDATE system_dm_jobs SET status = 'completed', completed_at = now(), claimed_until = NULL
            WHERE id = ${jobId} AND status = 'running'`.pipe(Effect.asVoid, Effect.orDie))

      const fail = Effect.fn("SystemDmJobs.fail")((jobId: string, error: string) =>
        Effect.andThen(
          sql`UPDATE system_dm_jobs SET status = 'failed', completed_at = now(), last_error = ${error}, claimed_until = NULL
              WHERE id = ${jobId}`,
          sql`DELETE FROM system_dm_job_targets WHERE job_id = ${jobId}`
        ).pipe(sql.withTransaction, Effect.asVoid, Effect.orDie))

      const systemUser = Effect.fn("SystemDmJobs.systemUser")(function*(newId: string) {
        // Two processes making it at once make one.
        yield* sql`SELECT pg_advisory_xact_lock(hashtext('guildhall.system_user'))`
        const [existing] = yield* sql<{ id: string }>`SELECT id::text AS id FROM users WHERE system ORDER BY id LIMIT 1`
        if (existing !== undefined) return existing.id
        // #0000: registration never hands it out (1 to 9999). An operator may mark another account system instead.
        yield* sql`INSERT INTO users (id, username, discriminator, global_name, system) VALUES (${newId}, 'system', '0000', 'System', true)`
        return newId
      }, sql.withTransaction, Effect.orDie)

      return SystemDmJobs.of({ create, list, find, approve, claim, renew, prepareBatch, finishTarget, complete, fail, systemUser })
    })
  )
}
