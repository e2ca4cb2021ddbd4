import { Context, Effect, Layer } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import { isoTimestamp } from "../../platform/Timestamps.ts"
import type { IndexType, RefreshProgress } from "./Api.ts"

/**
 * The indexes holding messages' search data (schema/0024, 0026, 0027), rebuilt
 * in this order by a refresh of everything. A migration adding one adds it here.
 */
export const SEARCH_INDEXES = [
  "messages_content_search",
  "messages_mentioned_users",
  "messages_mass_mentions",
  "messages_link_hostnames",
  "messages_embed_types",
  "messages_embed_providers",
  "messages_attachment_filenames",
  "messages_attachment_extensions"
] as const

/** A job claimed by this process, with where it stands. */
export interface ClaimedRefresh {
  readonly id: string
  readonly indexType: IndexType
  readonly subjectId: string | null
  readonly total: number | null
  readonly processed: number
  /** The last message rewritten (guild, user); undefined before the first. */
  readonly cursor: { readonly channelId: string; readonly messageId: string } | undefined
}

interface JobRow {
  readonly id: string
  readonly index_type: IndexType
  readonly subject_id: string | null
  readonly status: RefreshProgress["status"]
  readonly total: number | null
  readonly processed: number
  readonly cursor_channel: string | null
  readonly cursor_message: string | null
  readonly started_at: Date
  readonly completed_at: Date | null
  readonly failed_at: Date | null
  readonly error: string | null
}

const JOB_COLUMNS = `id::text AS id, index_type, subject_id::text AS subject_id, status, total, processed,
  cursor_channel::text AS cursor_channel, cursor_message::text AS cursor_message, started_at, completed_at, failed_at, error`

const progressOf = (row: JobRow): RefreshProgress => ({
  job_id: row.id,
  status: row.status,
  index_type: row.index_type,
  ...(row.index_type === "guild" && row.subject_id !== null ? { guild_id: row.subject_id } : {}),
  ...(row.index_type === "user" && row.subject_id !== null ? { user_id: row.subject_id } : {}),
  total: row.total,
  processed: row.processed,
  progress_percent: row.status === "completed" ? 100 : row.total === null || row.total === 0 ? 0 : Math.floor((row.processed * 100) / row.total),
  started_at: isoTimestamp(row.started_at),
  ...(row.completed_at === null ? {} : { completed_at: isoTimestamp(row.completed_at) }),
  ...(row.failed_at === null ? {} : { failed_at: isoTimestamp(row.failed_at) }),
  ...(row.error === null ? {} : { error: row.error })
})

/**
 * Search index refresh jobs (schema/0042). Messages' search data lives only in
 * expression indexes (schema/0024: no stored vector), so it goes stale only when
 * what computes it changes (a text search configuration, one of the IMMUTABLE
 * functions of 0026/0027 redefined) and is made again by writing the rows anew:
 *  - all: every search index rebuilt whole (REINDEX CONCURRENTLY: reads and
 *    writes go on meanwhile), one after another;
 *  - guild, user: the guild's (or the author's) messages rewritten in batches,
 *    walked by (channel_id, id): a guild's along the primary key, an author's
 *    read through messages_author and ordered per batch. A row's index entries are computed when a new
 *    version of it is written without HOT, which needs an indexed column to
 *    change: a batch appends a character to each content and takes it off again
 *    in one transaction, so nobody sees the change, the final version has fresh
 *    entries in every index, and the stale ones point at dead versions.
 * A process claims a job for a lease and renews it as it goes; the cursor is
 * committed with each batch, so a job taken again after a crash goes on from
 * its last batch (rewriting a row twice is harmless).
 */
export class SearchRefreshJobs extends Context.Service<SearchRefreshJobs, {
  readonly create: (job: { readonly id: string; readonly adminId: string; readonly indexType: IndexType; readonly subjectId: string | null }) => Effect.Effect<void>
  readonly claim: (leaseSeconds: number) => Effect.Effect<ClaimedRefresh | undefined>
  /** Extends the claim; false when the job is no longer running. */
  readonly renew: (jobId: string, leaseSeconds: number) => Effect.Effect<boolean>
  /** How many messages (guild, user) or indexes (all) the job goes through, kept with it. */
  readonly count: (job: ClaimedRefresh) => Effect.Effect<number>
  /**
   * Rewrites the next `limit` messages after the cursor and moves it, in one transaction; how many (0: none
   * left). It may fail as any writer of messages may (a deadlock with a guild's batch): it is safe to retry.
   */
  readonly rewriteBatch: (
    job: ClaimedRefresh,
    limit: number
  ) => Effect.Effect<{ readonly rewritten: number; readonly cursor: ClaimedRefresh["cursor"] }, SqlError.SqlError>
  /** Rebuilds the `processed`-th search index and counts it done. */
  readonly rebuildIndex: (jobId: string, index: number) => Effect.Effect<void>
  readonly complete: (jobId: string) => Effect.Effect<void>
  readonly fail: (jobId: string, error: string) => Effect.Effect<void>
  readonly progress: (jobId: string) => Effect.Effect<RefreshProgress | undefined>
}>()("guildhall/SearchRefreshJobs") {
  static readonly layer = Layer.effect(
    SearchRefreshJobs,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const lease = (seconds: number) => sql`now() + make_interval(secs => ${seconds})`

      /** The job's messages: a guild's, through its channels (the primary key's ranges), or an author's. */
      const scope = (job: ClaimedRefresh): Fragment =>
        job.indexType === "guild"
          ? sql`m.channel_id IN (SELECT c.id FROM channels c WHERE c.guild_id = ${job.subjectId})`
          : sql`m.author_id = ${job.subjectId}`

      const create = Effect.fn("SearchRefreshJobs.create")((job: {
        readonly id: string
        readonly adminId: string
        readonly indexType: IndexType
        readonly subjectId: string | null
      }) =>
        sql`INSERT INTO search_refresh_jobs (id, index_type, subject_id, admin_id)
            VALUES (${job.id}, ${job.indexType}, ${job.subjectId}, ${job.adminId})`.pipe(Effect.asVoid, Effect.orDie))

      const claim = Effect.fn("SearchRefreshJobs.claim")(function*(leaseSeconds: number) {
        const [job] = yield* sql<JobRow>`
          SELECT ${sql.literal(JOB_COLUMNS)} FROM search_refresh_jobs
          WHERE status = 'in_progress' AND (claimed_until IS NULL OR claimed_until < now())
          ORDER BY id LIMIT 1
          FOR UPDATE SKIP LOCKED`
        if (job === undefined) return undefined
        yield* sql`UPDATE search_refresh_jobs SET claimed_until = ${lease(leaseSeconds)} WHERE id = ${job.id}`
        return {
          id: job.id,
          indexType: job.index_type,
          subjectId: job.subject_id,
          total: job.total,
          processed: job.processed,
          cursor: job.cursor_channel === null || job.cursor_message === null
            ? undefined
            : { channelId: job.cursor_channel, messageId: job.cursor_message }
        }
      }, sql.withTransaction, Effect.orDie)

      const renew = Effect.fn("SearchRefreshJobs.renew")((jobId: string, leaseSeconds: number) =>
        sql`UPDATE search_refresh_jobs SET claimed_until = ${lease(leaseSeconds)}
            WHERE id = ${jobId} AND status = 'in_progress' RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie))

      const count = Effect.fn("SearchRefreshJobs.count")(function*(job: ClaimedRefresh) {
        const total = job.indexType === "all"
          ? SEARCH_INDEXES.length
          : ((yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM messages m WHERE ${scope(job)}`)[0]?.n ?? 0)
        yield* sql`UPDATE search_refresh_jobs SET total = ${total} WHERE id = ${job.id}`
        return total
      }, Effect.orDie)

      const rewriteBatch = Effect.fn("SearchRefreshJobs.rewriteBatch")(function*(job: ClaimedRefresh, limit: number) {
        const after = job.cursor === undefined ? sql`TRUE` : sql`(m.channel_id, m.id) > (${job.cursor.channelId}::bigint, ${job.cursor.messageId}::bigint)`
        const batch = yield* sql<{ channel_id: string; id: string }>`
          SELECT m.channel_id::text AS channel_id, m.id::text AS id FROM messages m
          WHERE ${scope(job)} AND ${after}
          ORDER BY m.channel_id, m.id LIMIT ${limit}
          FOR UPDATE`
        const last = batch[batch.length - 1]
        if (last === undefined) return { rewritten: 0, cursor: job.cursor }
        const keys = sql`SELECT * FROM jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) AS k (channel_id bigint, id bigint)`
        yield* sql`UPDATE messages m SET content = m.content || ' ' FROM (${keys}) k WHERE m.channel_id = k.channel_id AND m.id = k.id`
        yield* sql`UPDATE messages m SET content = left(m.content, -1) FROM (${keys}) k WHERE m.channel_id = k.channel_id AND m.id = k.id`
        yield* sql`UPDATE search_refresh_jobs SET processed = processed + ${batch.length},
                     cursor_channel = ${last.channel_id}, cursor_message = ${last.id} WHERE id = ${job.id}`
        return { rewritten: batch.length, cursor: { channelId: last.channel_id, messageId: last.id } }
      }, sql.withTransaction)

      const rebuildIndex = Effect.fn("SearchRefreshJobs.rebuildIndex")(function*(jobId: string, index: number) {
        const name = SEARCH_INDEXES[index]
        if (name === undefined) return
        // Not in a transaction: REINDEX CONCURRENTLY refuses to run inside one. The name is one of ours.
        yield* sql.unsafe(`REINDEX INDEX CONCURRENTLY ${name}`)
        yield* sql`UPDATE search_refresh_jobs SET processed = ${index + 1} WHERE id = ${jobId}`
      }, Effect.orDie)

      const complete = Effect.fn("SearchRefreshJobs.complete")((jobId: string) =>
        sql`UPDATE search_refresh_jobs SET status = 'completed', completed_at = now(), claimed_until = NULL
            WHERE id = ${jobId} AND status = 'in_progress'`.pipe(Effect.asVoid, Effect.orDie))

      const fail = Effect.fn("SearchRefreshJobs.fail")((jobId: string, error: string) =>
        sql`UPDATE search_refresh_jobs SET status = 'failed', failed_at = now(), error = ${error}, claimed_until = NULL
            WHERE id = ${jobId}`.pipe(Effect.asVoid, Effect.orDie))

      const progress = Effect.fn("SearchRefreshJobs.progress")((jobId: string) =>
        sql<JobRow>`SELECT ${sql.literal(JOB_COLUMNS)} FROM search_refresh_jobs WHERE id = ${jobId}`.pipe(
          Effect.map(([row]) => (row === undefined ? undefined : progressOf(row))),
          Effect.orDie
        ))

      return SearchRefreshJobs.of({ create, claim, renew, count, rewriteBatch, rebuildIndex, complete, fail, progress })
    })
  )
}
