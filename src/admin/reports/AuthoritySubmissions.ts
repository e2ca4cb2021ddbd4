import { Config, Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { isoTimestampOrNull } from "../../platform/Timestamps.ts"
import { type Report, ReportsRepo } from "../../reports/Repo.ts"
import { Authority, type AuthorityReport } from "./Authority.ts"
import { sweepEvery } from "../../platform/Sweeps.ts"

/** Tries of one submission before it is given up as failed (an operator may submit it again). */
export const MAX_ATTEMPTS = 6
/** The longest wait between two tries. */
const MAX_BACKOFF_SECONDS = 3600

const positive = (name: string, fallback: number) =>
  Config.schema(Schema.Int.check(Schema.isGreaterThan(0)), name).pipe(Config.withDefault(fallback))
/** AUTHORITY_RETRY_BASE_SECONDS: the first wait after a failure; it doubles with each. AUTHORITY_SWEEP_SECONDS: how often due retries are looked for. */
const settings = Config.all({
  retryBaseSeconds: positive("AUTHORITY_RETRY_BASE_SECONDS", 60),
  sweepSeconds: positive("AUTHORITY_SWEEP_SECONDS", 30)
})

export type SubmissionStatus = "not_submitted" | "pending" | "submitted" | "failed"
export interface Submission {
  readonly status: SubmissionStatus
  readonly failure_reason: string | null
  readonly authority_report_id: string | null
  readonly submitted_at: string | null
  readonly submitted_by_admin_id: string | null
}
interface Row {
  readonly status: "pending" | "submitted" | "failed"
  readonly attempts: number
  readonly failure_reason: string | null
  readonly authority_report_id: string | null
  readonly submitted_at: Date | null
  readonly submitted_by_admin_id: string
}

const toAuthority = (r: Report): AuthorityReport => ({
  report_id: r.id,
  category: r.category,
  reported_at: r.reportedAt,
  additional_info: r.additionalInfo,
  reported_user_id: r.reportedUserId,
  reported_guild_id: r.reportedGuildId,
  reported_channel_id: r.reportedChannelId,
  reported_message_id: r.reportedMessageId,
  message_context: r.messageContext ?? []
})

/** The outcome of one try: the authority's id for the report, or why it failed. */
export type Attempt = { readonly ok: true; readonly authorityReportId: string } | { readonly ok: false; readonly reason: string }

/**
 * Submissions of reports to the authority, tracked in Postgres
 * (authority_submissions): an operator's submit tries at once; a failed try
 * is retried by the sweep with a doubling wait, up to MAX_ATTEMPTS tries.
 */
export class AuthoritySubmissions extends Context.Service<AuthoritySubmissions, {
  readonly status: (reportId: string) => Effect.Effect<Submission>
  /** Queues the report and tries once; "already" when it is queued or submitted. */
  readonly submit: (report: Report, adminId: string) => Effect.Effect<Attempt | "already">
  /** Tries every submission whose retry is due (the sweep). */
  readonly retryDue: Effect.Effect<void>
}>()("guildhall/AuthoritySubmissions") {
  static readonly layer = Layer.effect(
    AuthoritySubmissions,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const authority = yield* Authority
      const reports = yield* ReportsRepo
      const { retryBaseSeconds } = yield* settings

      const status = Effect.fn("AuthoritySubmissions.status")(function*(reportId: string) {
        const [row] = yield* sql<Row>`SELECT status, attempts, failure_reason, authority_report_id, submitted_at,
          submitted_by_admin_id::text AS submitted_by_admin_id FROM authority_submissions WHERE report_id = ${reportId}`
        if (row === undefined) {
          return { status: "not_submitted" as const, failure_reason: null, authority_report_id: null, submitted_at: null, submitted_by_admin_id: null }
        }
        return {
          status: row.status,
          failure_reason: row.failure_reason,
          authority_report_id: row.authority_report_id,
          submitted_at: isoTimestampOrNull(row.submitted_at),
          submitted_by_admin_id: row.submitted_by_admin_id
        }
      }, Effect.orDie)

      /** One try, and its outcome recorded: submitted, or the next retry (or failed after the last). */
      const attempt = Effect.fn("AuthoritySubmissions.attempt")(function*(report: Report) {
        const outcome = yield* authority.submit(toAuthority(report)).pipe(
          Effect.map((id): Attempt => ({ ok: true, authorityReportId: id })),
          Effect.catch((error) => Effect.succeed<Attempt>({ ok: false, reason: error.message }))
        )
        if (outcome.ok) {
          yield* sql`UPDATE authority_submissions SET status = 'submitted', attempts = attempts + 1, next_attempt_at = NULL,
            failure_reason = NULL, authority_report_id = ${outcome.authorityReportId}, submitted_at = now()
            WHERE report_id = ${report.id}`
        } else {
          yield* sql`UPDATE authority_submissions SET attempts = attempts + 1, failure_reason = ${outcome.reason},
            status = CASE WHEN attempts + 1 >= ${MAX_ATTEMPTS} THEN 'failed' ELSE 'pending' END,
            next_attempt_at = CASE WHEN attempts + 1 >= ${MAX_ATTEMPTS} THEN NULL
              ELSE now() + make_interval(secs => LEAST(${MAX_BACKOFF_SECONDS}, ${retryBaseSeconds} * power(2, attempts))) END
            WHERE report_id = ${report.id}`
        }
        return outcome
      }, Effect.orDie)

      const submit = Effect.fn("AuthoritySubmissions.submit")(function*(report: Report, adminId: string) {
        // A failed one may be submitted again; a queued or submitted one may not.
        const claimed = yield* sql<{ report_id: string }>`
          INSERT INTO authority_submissions (report_id, status, attempts, submitted_by_admin_id)
          VALUES (${report.id}, 'pending', 0, ${adminId})
          ON CONFLICT (report_id) DO UPDATE SET status = 'pending', attempts = 0, failure_reason = NULL,
            next_attempt_at = NULL, submitted_by_admin_id = EXCLUDED.submitted_by_admin_id
            WHERE authority_submissions.status = 'failed'
          RETURNING report_id::text AS report_id`
        if (claimed.length === 0) return "already" as const
        return yield* attempt(report)
      }, Effect.orDie)

      const retryDue = Effect.gen(function*() {
        // Claimed by pushing the retry out, so that two API processes do not try the same one.
        const due = yield* sql<{ report_id: string }>`
          UPDATE authority_submissions SET next_attempt_at = now() + interval '5 minutes'
          WHERE report_id IN (SELECT report_id FROM authority_submissions
            WHERE status = 'pending' AND next_attempt_at <= now() ORDER BY next_attempt_at LIMIT 20 FOR UPDATE SKIP LOCKED)
          RETURNING report_id::text AS report_id`
        yield* Effect.forEach(due, ({ report_id }) =>
          Effect.flatMap(reports.byId(report_id), (report) => (report === undefined ? Effect.void : Effect.asVoid(attempt(report)))), { discard: true })
      }).pipe(Effect.orDie, Effect.withSpan("AuthoritySubmissions.retryDue"))

      return AuthoritySubmissions.of({ status, submit, retryDue })
    })
  )
}

/** The sweep: due retries, every AUTHORITY_SWEEP_SECONDS. */
export const authoritySweep = Layer.effectDiscard(
  Effect.gen(function*() {
    const { sweepSeconds } = yield* settings
    const submissions = yield* AuthoritySubmissions
    yield* sweepEvery(submissions.retryDue, sweepSeconds, "authority retry sweep")
  })
)
