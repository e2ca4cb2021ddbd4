import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOnly } from "../http/Authentication.ts"
import { BoundedText } from "../model/Common.ts"
import { ApiErrors } from "../model/Errors.ts"
import { ChannelId, GuildId, MessageId, Snowflake, UserId } from "../model/Ids.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"
import { GUILD_REPORT_CATEGORIES, MESSAGE_REPORT_CATEGORIES, USER_REPORT_CATEGORIES } from "./Categories.ts"

const AdditionalInfo = Schema.optional(BoundedText(0, 1000))

export const ReportMessageRequest = Schema.Struct({
  channel_id: ChannelId,
  message_id: MessageId,
  category: Schema.Literals(MESSAGE_REPORT_CATEGORIES),
  additional_info: AdditionalInfo
})
export const ReportUserRequest = Schema.Struct({
  user_id: UserId,
  category: Schema.Literals(USER_REPORT_CATEGORIES),
  additional_info: AdditionalInfo,
  /** Where the reporter met the user, kept as the report's guild context. */
  guild_id: Schema.optional(GuildId)
})
export const ReportGuildRequest = Schema.Struct({
  guild_id: GuildId,
  category: Schema.Literals(GUILD_REPORT_CATEGORIES),
  additional_info: AdditionalInfo
})

/** ReportResponse: what the reporter learns of their report. */
export const ReportResponse = Schema.Struct({ report_id: Schema.String, status: Schema.String, reported_at: Schema.String })

export const DsaEmail = Schema.String.check(
  Schema.isMaxLength(254),
  Schema.isPattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: "INVALID_EMAIL_FORMAT: Not a valid email address" })
)
/** The code as mailed: XXXX-XXXX, upper-case letters and digits. */
const DsaCode = Schema.String.check(
  Schema.isPattern(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/, { message: "INVALID_FORMAT: The code has the form XXXX-XXXX" })
)
const Tag = Schema.String.check(
  Schema.isPattern(/^[^#]{1,32}#[0-9]{4}$/, { message: "INVALID_FORMAT: A tag has the form username#1234" })
)
/** DSA reports come from residents of the EU: the country is one of its members. */
export const EU_COUNTRIES = [
  "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV", "LT", "LU",
  "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE"
] as const

export const DsaEmailSendRequest = Schema.Struct({ email: DsaEmail })
export const DsaEmailVerifyRequest = Schema.Struct({ email: DsaEmail, code: DsaCode })
export const DsaTicketResponse = Schema.Struct({ ticket: Schema.String })
export const OkResponse = Schema.Struct({ ok: Schema.Literal(true) })

const dsaBase = {
  ticket: BoundedText(1, 128),
  additional_info: AdditionalInfo,
  reporter_full_legal_name: BoundedText(1, 160),
  reporter_country_of_residence: Schema.Literals(EU_COUNTRIES),
  reporter_fluxer_tag: Schema.optional(Tag)
}
export const DsaReportRequest = Schema.Union([
  Schema.Struct({
    ...dsaBase,
    report_type: Schema.Literal("message"),
    category: Schema.Literals(MESSAGE_REPORT_CATEGORIES),
    message_link: BoundedText(1, 2048),
    reported_user_tag: Schema.optional(Tag)
  }),
  Schema.Struct({
    ...dsaBase,
    report_type: Schema.Literal("user"),
    category: Schema.Literals(USER_REPORT_CATEGORIES),
    user_id: Schema.optional(Snowflake),
    user_tag: Schema.optional(Tag)
  }),
  Schema.Struct({
    ...dsaBase,
    report_type: Schema.Literal("guild"),
    category: Schema.Literals(GUILD_REPORT_CATEGORIES),
    guild_id: Snowflake,
    invite_code: Schema.optional(BoundedText(1, 64))
  })
])
export type DsaReportRequest = typeof DsaReportRequest.Type

/** Per user, or per address for the routes without an account. */
const bucket = (name: string, limit: number, windowSeconds: number) => ({ name: `reports.${name}`, limit, windowMillis: windowSeconds * 1000 })

const userReport = <const Name extends string, const Path extends `/${string}`, P extends Schema.Top>(name: Name, path: Path, payload: P) =>
  HttpApiEndpoint.post(name, path, { payload, success: ReportResponse, error: ApiErrors })
    .annotate(Credentials, userOnly)
    .annotate(RateLimitBucket, bucket("create", 10, 60))
    .middleware(RateLimit)

export class ReportsApi extends HttpApiGroup.make("reports").add(
  userReport("reportMessage", "/reports/message", ReportMessageRequest),
  userReport("reportUser", "/reports/user", ReportUserRequest),
  userReport("reportGuild", "/reports/guild", ReportGuildRequest)
).middleware(UserAuthentication) {}

/** The DSA routes serve people without an account: no authentication, limits per address. */
export class DsaReportsApi extends HttpApiGroup.make("dsaReports").add(
  HttpApiEndpoint.post("sendCode", "/reports/dsa/email/send", { payload: DsaEmailSendRequest, success: OkResponse, error: ApiErrors })
    .annotate(RateLimitBucket, bucket("dsa.send", 5, 600)).middleware(RateLimit),
  HttpApiEndpoint.post("verifyCode", "/reports/dsa/email/verify", { payload: DsaEmailVerifyRequest, success: DsaTicketResponse, error: ApiErrors })
    .annotate(RateLimitBucket, bucket("dsa.verify", 10, 600)).middleware(RateLimit),
  HttpApiEndpoint.post("create", "/reports/dsa", { payload: DsaReportRequest, success: ReportResponse, error: ApiErrors })
    .annotate(RateLimitBucket, bucket("dsa.create", 5, 600)).middleware(RateLimit)
) {}
