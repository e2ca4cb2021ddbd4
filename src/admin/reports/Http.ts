import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { auditReason } from "../../guilds/AuditReason.ts"
import { Api } from "../../http/Api.ts"
import { CurrentOperator } from "../../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { Mailer } from "../../mail/Mailer.ts"
import { BadRequest, NotFound } from "../../model/Errors.ts"
import { reportResolvedMail } from "../../reports/Mails.ts"
import { ReportsRepo } from "../../reports/Repo.ts"
import { ReportTargets } from "../../reports/Targets.ts"
import { AdminRepo } from "../Repo.ts"
import { AuthoritySubmissions } from "./AuthoritySubmissions.ts"
import { LegalHolds } from "./LegalHolds.ts"
import { reportView } from "./View.ts"

const DEFAULT_LIMIT = 50

const unknownReport = () => new NotFound({ code: "UNKNOWN_REPORT", message: "Unknown report" })

export const AdminReportsHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "adminReports", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const reports = yield* ReportsRepo
    const targets = yield* ReportTargets
    const holds = yield* LegalHolds
    const submissions = yield* AuthoritySubmissions
    const admin = yield* AdminRepo
    const mailer = yield* Mailer

    const existing = (id: string) =>
      Effect.flatMap(reports.byId(id), (report) => (report === undefined ? Effect.fail(unknownReport()) : Effect.succeed(report)))

    const audit = (action: string, reportId: string, metadata: Record<string, string> = {}) =>
      Effect.flatMap(CurrentOperator, (op) =>
        admin.audit({ adminId: op.id, action, targetType: "report", targetId: reportId, metadata: { report_id: reportId, ...metadata } }))


    /** The report's evidence: the reported message and the context captured with it. */
    const evidenceIds = (report: { reportedMessageId: string | null; messageContext: ReadonlyArray<{ id: string }> | null }) =>
      [...new Set([...(report.reportedMessageId === null ? [] : [report.reportedMessageId]), ...(report.messageContext ?? []).map((m) => m.id)])]

    /** The reporter hears of the outcome by email, as production tells them (only with a public comment). */
    const tellReporter = (reporterId: string | null, reporterEmail: string | null, reportId: string, comment: string | null) =>
      Effect.gen(function*() {
        if (comment === null || comment.length === 0) return
        const reporter = reporterId === null ? undefined : yield* targets.user(reporterId)
        const email = reporter?.email ?? reporterEmail
        if (email === null) return
        yield* mailer.send(reportResolvedMail(email, reporter?.username ?? "there", reportId, comment)).pipe(
          Effect.catch((error) => Effect.logWarning("report resolution not mailed", error.message))
        )
      })

    return handlers
      .handle("get", ({ params }) => Effect.map(existing(params.report_id), (report) => reportView(report, true)))
      .handle("list", ({ payload }) =>
        Effect.map(
          reports.search({ status: payload.status ?? 0, limit: payload.limit ?? DEFAULT_LIMIT, offset: payload.offset ?? 0, sortBy: "id", sortOrder: "desc" }),
          (found) => ({ reports: found.reports.map((r) => reportView(r, false)) })
        ))
      .handle("search", ({ payload }) =>
        Effect.gen(function*() {
          const limit = payload.limit ?? DEFAULT_LIMIT
          const offset = payload.offset ?? 0
          const found = yield* reports.search({
            query: payload.query === undefined || payload.query.length === 0 ? undefined : payload.query,
            category: payload.category,
            guildContextId: payload.guild_context_id,
            reportedChannelId: payload.reported_channel_id,
            reportedGuildId: payload.reported_guild_id,
            reportedUserId: payload.reported_user_id,
            reporterId: payload.reporter_id,
            resolvedByAdminId: payload.resolved_by_admin_id,
            reportType: payload.report_type,
            status: payload.status,
            sortBy: payload.sort_by,
            sortOrder: payload.sort_order,
            limit,
            offset
          })
          return { reports: found.reports.map((r) => reportView(r, false)), total: found.total, limit, offset }
        }))
      .handle("resolve", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const comment = payload.public_comment === undefined || payload.public_comment.length === 0 ? null : payload.public_comment
          const outcome = yield* reports.resolve(payload.report_id, op.id, comment, yield* auditReason)
          if (outcome === "unknown") return yield* unknownReport()
          if (outcome === "already_resolved") {
            return yield* new BadRequest({ code: "REPORT_ALREADY_RESOLVED", message: "This report has already been resolved" })
          }
          const report = outcome.resolved
          yield* audit("resolve_report", report.id, { report_type: String(report.reportType) })
          yield* tellReporter(report.reporterId, report.reporterEmail, report.id, comment)
          return { report_id: report.id, status: report.status, public_comment: report.publicComment, resolved_at: report.resolvedAt }
        }))
      .handle("legalHold", ({ params }) =>
        Effect.gen(function*() {
          yield* existing(params.report_id)
          const ids = yield* holds.of(params.report_id)
          return { held: ids.length > 0, message_ids: ids }
        }))
      .handle("setLegalHold", ({ params, payload }) =>
        Effect.gen(function*() {
          const report = yield* existing(params.report_id)
          if (payload.held === false) {
            yield* holds.release(report.id)
            yield* audit("release_legal_hold", report.id)
            return { held: false, message_ids: [] }
          }
          const ids = evidenceIds(report)
          if (ids.length === 0) {
            return yield* new BadRequest({ code: "REPORT_HAS_NO_MESSAGES", message: "This report names no message to hold" })
          }
          yield* holds.hold(report.id, ids)
          yield* audit("set_legal_hold", report.id, { message_count: String(ids.length) })
          const held = yield* holds.of(report.id)
          return { held: held.length > 0, message_ids: held }
        }))
      .handle("authorityStatus", ({ params }) => Effect.andThen(existing(params.report_id), submissions.status(params.report_id)))
      .handle("authoritySubmit", ({ params }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const report = yield* existing(params.report_id)
          const outcome = yield* submissions.submit(report, op.id)
          if (outcome === "already") {
            return yield* new BadRequest({ code: "AUTHORITY_ALREADY_SUBMITTED", message: "This report was already submitted to the authority" })
          }
          yield* audit("authority_submit", report.id, { outcome: outcome.ok ? "submitted" : "queued_for_retry" })
          // A failed first try stays queued: the sweep retries it (AuthoritySubmissions.ts).
          return outcome.ok
            ? { success: true, error: null, authority_report_id: outcome.authorityReportId }
            : { success: false, error: `AUTHORITY_SUBMISSION_FAILED: ${outcome.reason}`, authority_report_id: null }
        }))
  }))))
