import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AdminAuthentication } from "../../http/Authentication.ts"
import { BoundedText } from "../../model/Common.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { Snowflake } from "../../model/Ids.ts"
import { ContextMessage } from "../../reports/Repo.ts"

const Id = Snowflake.pipe(Schema.brand("ReportId"))
const ReportPath = { report_id: Id }
const NullableString = Schema.NullOr(Schema.String)

/** ReportType 0 message, 1 user, 2 guild; ReportStatus 0 pending, 1 resolved (as the production service numbers them). */
const ReportTypeValue = Schema.Literals([0, 1, 2])
const ReportStatusValue = Schema.Literals([0, 1])

export const ReportAdminResponse = Schema.Struct({
  report_id: Schema.String,
  report_type: Schema.Number,
  status: Schema.Number,
  reported_at: Schema.String,
  category: NullableString,
  additional_info: NullableString,
  public_comment: NullableString,
  message_context: Schema.optional(Schema.Array(ContextMessage)),
  reported_channel_id: NullableString,
  reported_guild_id: NullableString,
  reported_message_id: NullableString,
  reported_user_id: NullableString,
  reporter_id: NullableString,
  resolved_by_admin_id: NullableString,
  reported_channel_name: NullableString,
  reported_guild_invite_code: NullableString,
  reported_guild_name: NullableString,
  reported_user_avatar_hash: NullableString,
  reported_user_discriminator: NullableString,
  reported_user_tag: NullableString,
  reported_user_username: NullableString,
  reporter_country_of_residence: NullableString,
  reporter_discriminator: NullableString,
  reporter_email: NullableString,
  reporter_full_legal_name: NullableString,
  reporter_tag: NullableString,
  reporter_username: NullableString,
  resolved_at: NullableString
})
export type ReportAdminResponse = typeof ReportAdminResponse.Type

const Limit = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 200 }))
const Offset = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

export const ListReportsRequest = Schema.Struct({
  status: Schema.optional(ReportStatusValue),
  limit: Schema.optional(Limit),
  offset: Schema.optional(Offset)
})
export const ListReportsResponse = Schema.Struct({ reports: Schema.Array(ReportAdminResponse) })

export const SearchReportsRequest = Schema.Struct({
  query: Schema.optional(BoundedText(0, 1024)),
  category: Schema.optional(BoundedText(1, 64)),
  guild_context_id: Schema.optional(Snowflake),
  reported_channel_id: Schema.optional(Snowflake),
  reported_guild_id: Schema.optional(Snowflake),
  reported_user_id: Schema.optional(Snowflake),
  reporter_id: Schema.optional(Snowflake),
  resolved_by_admin_id: Schema.optional(Snowflake),
  limit: Schema.optional(Limit),
  offset: Schema.optional(Offset),
  report_type: Schema.optional(ReportTypeValue),
  status: Schema.optional(ReportStatusValue),
  sort_by: Schema.optional(Schema.Literals(["reported_at", "resolved_at", "id"])),
  sort_order: Schema.optional(Schema.Literals(["asc", "desc"]))
})
export const SearchReportsResponse = Schema.Struct({
  reports: Schema.Array(ReportAdminResponse),
  total: Schema.Number,
  limit: Schema.Number,
  offset: Schema.Number
})

export const ResolveReportRequest = Schema.Struct({ report_id: Id, public_comment: Schema.optional(BoundedText(0, 512)) })
export const ResolveReportResponse = Schema.Struct({
  report_id: Schema.String,
  status: Schema.Number,
  public_comment: NullableString,
  resolved_at: NullableString
})

/** Putting a hold (the default) or releasing it (`held: false`): the route has no DELETE here. */
export const LegalHoldRequest = Schema.Struct({ held: Schema.optional(Schema.Boolean) })
export const LegalHoldResponse = Schema.Struct({ held: Schema.Boolean, message_ids: Schema.Array(Schema.String) })

export const AuthoritySubmissionStatus = Schema.Literals(["not_submitted", "pending", "submitted", "failed"])
export const AuthoritySubmissionStatusResponse = Schema.Struct({
  status: AuthoritySubmissionStatus,
  failure_reason: NullableString,
  authority_report_id: NullableString,
  submitted_at: NullableString,
  submitted_by_admin_id: NullableString
})
export const AuthoritySubmitResultResponse = Schema.Struct({
  success: Schema.Boolean,
  error: NullableString,
  authority_report_id: NullableString
})

export class AdminReportsApi extends HttpApiGroup.make("adminReports").add(
  HttpApiEndpoint.get("get", "/admin/reports/:report_id", { params: ReportPath, success: ReportAdminResponse, error: ApiErrors }),
  HttpApiEndpoint.post("list", "/admin/reports/list", { payload: ListReportsRequest, success: ListReportsResponse, error: ApiErrors }),
  HttpApiEndpoint.post("search", "/admin/reports/search", { payload: SearchReportsRequest, success: SearchReportsResponse, error: ApiErrors }),
  HttpApiEndpoint.post("resolve", "/admin/reports/resolve", { payload: ResolveReportRequest, success: ResolveReportResponse, error: ApiErrors }),
  HttpApiEndpoint.get("legalHold", "/admin/reports/:report_id/legal-hold", { params: ReportPath, success: LegalHoldResponse, error: ApiErrors }),
  HttpApiEndpoint.post("setLegalHold", "/admin/reports/:report_id/legal-hold", {
    params: ReportPath,
    payload: LegalHoldRequest,
    success: LegalHoldResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.get("authorityStatus", "/admin/reports/:report_id/authority-status", {
    params: ReportPath,
    success: AuthoritySubmissionStatusResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("authoritySubmit", "/admin/reports/:report_id/authority-submit", {
    params: ReportPath,
    success: AuthoritySubmitResultResponse,
    error: ApiErrors
  })
).middleware(AdminAuthentication) {}
