import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"

export type SubjectType = "user" | "guild"
export type ArchiveStatus = "pending" | "processing" | "completed" | "failed"

/** An archive as its views need it (Views.ts). */
export interface ArchiveRow {
  readonly id: string
  readonly subject_type: SubjectType
  readonly subject_id: string
  readonly requested_by: string
  readonly harvest: boolean
  readonly status: ArchiveStatus
  readonly progress_percent: number
  readonly progress_step: string | null
  readonly created_at: Date
  readonly started_at: Date | null
  readonly completed_at: Date | null
  readonly failed_at: Date | null
  readonly error_message: string | null
  readonly file_hash: string | null
  readonly file_size: string | null
  readonly expires_at: Date | null
  readonly download_url_expires_at: Date | null
}

/** A job claimed by this process; `attempt` fences it: a later claim of the same job makes this one's writes no-ops. */
export interface ClaimedArchive {
  readonly id: string
  readonly subjectType: SubjectType
  readonly subjectId: string
  readonly harvest: boolean
  readonly attempt: number
}

export interface ArchiveFilter {
  readonly subjectTypes: ReadonlyArray<SubjectType>
  readonly subjectId?: string | undefined
  readonly requestedBy?: string | undefined
  readonly includeExpired: boolean
  readonly limit: number
}

/** Claims after which a job that keeps dying with its process is failed instead of taken again. */
const MAX_ATTEMPTS = 5

const COLUMNS = `id::text AS id, subject_type, subject_id::text AS subject_id, requested_by, harvest, status,
  progress_percent, progress_step, created_at, started_at, completed_at, failed_at, error_message,
  file_hash, file_size::text AS file_size, expires_at, download_url_expires_at`

/**
 * The archive jobs of schema/0041_archives.sql: created by the endpoints,
 * claimed with a lease by any API process's sweep (`FOR UPDATE SKIP LOCKED`,
 * then claimed_until), renewed page after page, completed with the stored
 * zip's hash, and forgotten (the zip, not the row) once expired.
 */
export class ArchivesRepo extends Context.Service<ArchivesRepo, {
  readonly create: (archive: {
    readonly id: string
    readonly subjectType: SubjectType
    readonly subjectId: string
    readonly requestedBy: string
    readonly harvest: boolean
  }) => Effect.Effect<ArchiveRow>
  /**
   * The user's harvest, unless one is running or the last began less than
   * `cooldownHours` ago: then the seconds until another may be asked for.
   */
  readonly createHarvest: (id: string, userId: string, cooldownHours: number) => Effect.Effect<ArchiveRow | { readonly retryAfter: number }>
  readonly find: (id: string) => Effect.Effect<ArchiveRow | undefined>
  /** The user's newest harvest. */
  readonly latestHarvest: (userId: string) => Effect.Effect<ArchiveRow | undefined>
  readonly list: (filter: ArchiveFilter) => Effect.Effect<ReadonlyArray<ArchiveRow>>
  readonly claim: (leaseSeconds: number) => Effect.Effect<ClaimedArchive | undefined>
  /** Extends the claim; false when it was lost (taken again, or the job ended). */
  readonly renew: (job: ClaimedArchive, leaseSeconds: number) => Effect.Effect<boolean>
  readonly progress: (job: ClaimedArchive, percent: number, step: string) => Effect.Effect<void>
  /** The zip is stored: the archive is complete until `retentionDays` from now; false when the claim was lost. */
  readonly complete: (job: ClaimedArchive, file: { readonly hash: string; readonly size: number }, retentionDays: number) => Effect.Effect<boolean>
  readonly fail: (job: ClaimedArchive, message: string) => Effect.Effect<void>
  /** The key download URLs of the archive are signed with. */
  readonly signingKey: (id: string) => Effect.Effect<Buffer | undefined>
  readonly urlIssued: (id: string, expiresAt: Date) => Effect.Effect<void>
  /** Stored zips past their expiry, with whether another live archive has the same bytes. */
  readonly expired: (limit: number) => Effect.Effect<ReadonlyArray<{ readonly id: string; readonly hash: string; readonly shared: boolean }>>
  /** The archive's zip is gone from the store. */
  readonly forgetFile: (id: string) => Effect.Effect<void>
}>()("guildhall/ArchivesRepo") {
  static readonly layer = Layer.effect(
    ArchivesRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const columns = sql.literal(COLUMNS)
      const lease = (seconds: number) => sql`now() + make_interval(secs => ${seconds})`
      const first = <A>(rows: ReadonlyArray<A>) => rows[0]

      const create: ArchivesRepo["Service"]["create"] = Effect.fn("ArchivesRepo.create")(function*(a) {
        const rows = yield* sql<ArchiveRow>`
          INSERT INTO archives (id, subject_type, subject_id, requested_by, harvest, signing_key)
          VALUES (${a.id}, ${a.subjectType}, ${a.subjectId}, ${a.requestedBy}, ${a.harvest}, ${randomBytes(32)})
          RETURNING ${columns}`
        const row = rows[0]
        if (row === undefined) return yield* Effect.die(new Error("INSERT RETURNING gave no row"))
        return row
      }, Effect.orDie)

      const createHarvest = Effect.fn("ArchivesRepo.createHarvest")(function*(id: string, userId: string, cooldownHours: number) {
        const created = yield* sql<ArchiveRow>`
          INSERT INTO archives (id, subject_type, subject_id, requested_by, harvest, signing_key)
          SELECT ${id}, 'user', ${userId}, ${userId}, true, ${randomBytes(32)}
          WHERE NOT EXISTS (
            SELECT 1 FROM archives WHERE subject_type = 'user' AND subject_id = ${userId} AND harvest
              AND created_at > now() - make_interval(hours => ${cooldownHours}))
          ON CONFLICT (subject_id) WHERE harvest AND status IN ('pending', 'processing') DO NOTHING
          RETURNING ${columns}`
        const row = created[0]
        if (row !== undefined) return row
        const wait = yield* sql<{ seconds: number }>`
          SELECT greatest(1, ceil(extract(epoch FROM max(created_at) + make_interval(hours => ${cooldownHours}) - now())))::int AS seconds
          FROM archives WHERE subject_type = 'user' AND subject_id = ${userId} AND harvest`
        return { retryAfter: wait[0]?.seconds ?? 1 }
      }, Effect.orDie)

      const find = Effect.fn("ArchivesRepo.find")((id: string) =>
        sql<ArchiveRow>`SELECT ${columns} FROM archives WHERE id = ${id}`.pipe(Effect.map(first), Effect.orDie))

      const latestHarvest = Effect.fn("ArchivesRepo.latestHarvest")((userId: string) =>
        sql<ArchiveRow>`SELECT ${columns} FROM archives
                        WHERE subject_type = 'user' AND subject_id = ${userId} AND harvest
                        ORDER BY id DESC LIMIT 1`.pipe(Effect.map(first), Effect.orDie))

      const list = Effect.fn("ArchivesRepo.list")((f: ArchiveFilter) =>
        sql<ArchiveRow>`SELECT ${columns} FROM archives
          WHERE subject_type IN ${sql.in(f.subjectTypes)}
            ${f.subjectId === undefined ? sql`` : sql`AND subject_id = ${f.subjectId}`}
            ${f.requestedBy === undefined ? sql`` : sql`AND requested_by = ${f.requestedBy}`}
            ${f.includeExpired ? sql`` : sql`AND (expires_at IS NULL OR expires_at > now())`}
          ORDER BY id DESC LIMIT ${f.limit}`.pipe(Effect.orDie))

      const claim = Effect.fn("ArchivesRepo.claim")(function*(leaseSeconds: number) {
        // A job claimed too often fails here, so one that kills its process cannot loop forever.
        yield* sql`UPDATE archives SET status = 'failed', failed_at = now(), claimed_until = NULL,
                     error_message = 'The export stopped too many times before finishing'
                   WHERE status IN ('pending', 'processing') AND attempts >= ${MAX_ATTEMPTS}
                     AND (claimed_until IS NULL OR claimed_until < now())`
        const open = yield* sql<{ id: string; subject_type: SubjectType; subject_id: string; harvest: boolean }>`
          SELECT id::text AS id, subject_type, subject_id::text AS subject_id, harvest FROM archives
          WHERE status IN ('pending', 'processing') AND (claimed_until IS NULL OR claimed_until < now())
          ORDER BY id LIMIT 1
          FOR UPDATE SKIP LOCKED`
        const job = open[0]
        if (job === undefined) return undefined
        const claimed = yield* sql<{ attempts: number }>`
          UPDATE archives SET status = 'processing', started_at = coalesce(started_at, now()), attempts = attempts + 1,
            progress_percent = 0, progress_step = 'starting', claimed_until = ${lease(leaseSeconds)}
          WHERE id = ${job.id} RETURNING attempts`
        return { id: job.id, subjectType: job.subject_type, subjectId: job.subject_id, harvest: job.harvest, attempt: claimed[0]?.attempts ?? 0 }
      }, sql.withTransaction, Effect.orDie)

      const mine = (job: ClaimedArchive) => sql`id = ${job.id} AND status = 'processing' AND attempts = ${job.attempt}`

      const renew = Effect.fn("ArchivesRepo.renew")((job: ClaimedArchive, leaseSeconds: number) =>
        sql`UPDATE archives SET claimed_until = ${lease(leaseSeconds)} WHERE ${mine(job)} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ))

      const progress = Effect.fn("ArchivesRepo.progress")((job: ClaimedArchive, percent: number, step: string) =>
        sql`UPDATE archives SET progress_percent = ${percent}, progress_step = ${step} WHERE ${mine(job)}`.pipe(Effect.asVoid, Effect.orDie))

      const complete = Effect.fn("ArchivesRepo.complete")((job: ClaimedArchive, file: { readonly hash: string; readonly size: number }, days: number) =>
        sql`UPDATE archives SET status = 'completed', completed_at = now(), progress_percent = 100, progress_step = 'completed',
              file_hash = ${file.hash}, file_size = ${file.size}, expires_at = now() + make_interval(days => ${days}), claimed_until = NULL
            WHERE ${mine(job)} RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie))

      const fail = Effect.fn("ArchivesRepo.fail")((job: ClaimedArchive, message: string) =>
        sql`UPDATE archives SET status = 'failed', failed_at = now(), error_message = ${message}, claimed_until = NULL
            WHERE ${mine(job)}`.pipe(Effect.asVoid, Effect.orDie))

      const signingKey = Effect.fn("ArchivesRepo.signingKey")((id: string) =>
        sql<{ signing_key: Uint8Array }>`SELECT signing_key FROM archives WHERE id = ${id}`.pipe(
          Effect.map((rows) => {
            const key = rows[0]?.signing_key
            return key === undefined ? undefined : Buffer.from(key)
          }),
          Effect.orDie
        ))

      const urlIssued = Effect.fn("ArchivesRepo.urlIssued")((id: string, expiresAt: Date) =>
        sql`UPDATE archives SET download_url_expires_at = ${expiresAt} WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie))

      const expired = Effect.fn("ArchivesRepo.expired")((limit: number) =>
        sql<{ id: string; hash: string; shared: boolean }>`
          SELECT a.id::text AS id, a.file_hash AS hash,
                 EXISTS (SELECT 1 FROM archives o WHERE o.file_hash = a.file_hash AND o.id <> a.id AND o.expires_at > now()) AS shared
          FROM archives a WHERE a.file_hash IS NOT NULL AND a.expires_at <= now()
          ORDER BY a.expires_at LIMIT ${limit}`.pipe(Effect.orDie))

      const forgetFile = Effect.fn("ArchivesRepo.forgetFile")((id: string) =>
        sql`UPDATE archives SET file_hash = NULL WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie))

      return ArchivesRepo.of({
        create, createHarvest, find, latestHarvest, list, claim, renew, progress, complete, fail, signingKey, urlIssued, expired, forgetFile
      })
    })
  )
}
