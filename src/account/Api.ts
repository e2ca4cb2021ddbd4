import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { SudoFields } from "../auth/Sudo.ts"
import { Credentials, UserAuthentication, userOnly } from "../http/Authentication.ts"
import { ApiErrors } from "../model/Errors.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"
import { UserPrivateResponse } from "../model/Users.ts"

const Email = Schema.String.check(
  Schema.isMaxLength(254, { message: "EMAIL_LENGTH_INVALID: Must be at most 254 in length" }),
  Schema.isPattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: "INVALID_EMAIL_FORMAT: Not a valid email address" })
)
/** Tickets and proofs are 43 characters; the cap only keeps junk out. */
const Secret = Schema.String.check(Schema.isMaxLength(256))
/** Codes look like `ABCD-EFGH`; the service reads them in any case, with or without the dash. */
const Code = Schema.String.check(Schema.isMaxLength(32))
/** Length and commonness are checked by the service (PASSWORD_LENGTH_INVALID, PASSWORD_IS_TOO_COMMON); this caps what argon2 is fed. */
const Password = Schema.String.check(Schema.isMaxLength(1024))

/**
 * The reference's EmptyBodyRequest, plus the optional proof of sudo mode the
 * start of an email change needs. Listing `Schema.Null` makes HttpApi read a
 * request without any body as null (handlers read it as `{}`).
 */
export const EmailChangeStartRequest = [Schema.Struct(SudoFields), Schema.Null] as const
export const EmptyBodyRequest = [Schema.Struct({}), Schema.Null] as const

export const EmailChangeStartResponse = Schema.Struct({
  ticket: Schema.String,
  require_original: Schema.Boolean,
  original_email: Schema.NullOr(Schema.String),
  original_proof: Schema.NullOr(Schema.String),
  original_code_expires_at: Schema.NullOr(Schema.String),
  resend_available_at: Schema.NullOr(Schema.String)
})

export const EmailChangeTicketRequest = Schema.Struct({ ticket: Secret })
export const EmailChangeVerifyOriginalRequest = Schema.Struct({ ticket: Secret, code: Code })
export const EmailChangeVerifyOriginalResponse = Schema.Struct({ original_proof: Schema.String })
export const EmailChangeRequestNewRequest = Schema.Struct({ ticket: Secret, new_email: Email, original_proof: Secret })
export const EmailChangeRequestNewResponse = Schema.Struct({
  ticket: Schema.String,
  new_email: Schema.String,
  new_code_expires_at: Schema.String,
  resend_available_at: Schema.NullOr(Schema.String)
})
export const EmailChangeVerifyNewRequest = Schema.Struct({ ticket: Secret, code: Code, original_proof: Secret })
export const EmailTokenResponse = Schema.Struct({ email_token: Schema.String })
export const EmailChangeBouncedRequestNewRequest = Schema.Struct({ new_email: Email, ...SudoFields })
export const EmailChangeBouncedVerifyNewRequest = Schema.Struct({ ticket: Secret, code: Code })

export const PasswordChangeStartResponse = Schema.Struct({
  ticket: Schema.String,
  code_expires_at: Schema.String,
  resend_available_at: Schema.NullOr(Schema.String)
})
export const PasswordChangeTicketRequest = Schema.Struct({ ticket: Secret })
export const PasswordChangeVerifyRequest = Schema.Struct({ ticket: Secret, code: Code })
export const PasswordChangeVerifyResponse = Schema.Struct({ verification_proof: Schema.String })
export const PasswordChangeCompleteRequest = Schema.Struct({ ticket: Secret, verification_proof: Secret, new_password: Password })
export const PasswordChangeCompleteResponse = Schema.Struct({ token: Schema.String, auth_session_id_hash: Schema.String })

const emailChange = "/users/@me/email-change"
const passwordChange = "/users/@me/password-change"

/** Per user. Each step is taken a few times per change; mails are further held back by the resend cooldown. */
const bucket = (name: string, limit = 10, windowSeconds = 60) => ({
  name: `account.${name}`,
  limit,
  windowMillis: windowSeconds * 1000
})

export class AccountApi extends HttpApiGroup.make("account").add(
  HttpApiEndpoint.post("emailChangeStart", `${emailChange}/start`, {
    payload: EmailChangeStartRequest,
    success: EmailChangeStartResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("email-change.start")).middleware(RateLimit),
  HttpApiEndpoint.post("emailChangeVerifyOriginal", `${emailChange}/verify-original`, {
    payload: EmailChangeVerifyOriginalRequest,
    success: EmailChangeVerifyOriginalResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("email-change.verify-original")).middleware(RateLimit),
  HttpApiEndpoint.post("emailChangeResendOriginal", `${emailChange}/resend-original`, {
    payload: EmailChangeTicketRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("email-change.resend-original")).middleware(RateLimit),
  HttpApiEndpoint.post("emailChangeRequestNew", `${emailChange}/request-new`, {
    payload: EmailChangeRequestNewRequest,
    success: EmailChangeRequestNewResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("email-change.request-new")).middleware(RateLimit),
  HttpApiEndpoint.post("emailChangeResendNew", `${emailChange}/resend-new`, {
    payload: EmailChangeTicketRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("email-change.resend-new")).middleware(RateLimit),
  HttpApiEndpoint.post("emailChangeVerifyNew", `${emailChange}/verify-new`, {
    payload: EmailChangeVerifyNewRequest,
    success: EmailTokenResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("email-change.verify-new")).middleware(RateLimit),
  HttpApiEndpoint.post("emailChangeBouncedRequestNew", `${emailChange}/bounced/request-new`, {
    payload: EmailChangeBouncedRequestNewRequest,
    success: EmailChangeRequestNewResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("email-change.bounced-request-new")).middleware(RateLimit),
  HttpApiEndpoint.post("emailChangeBouncedResendNew", `${emailChange}/bounced/resend-new`, {
    payload: EmailChangeTicketRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("email-change.bounced-resend-new")).middleware(RateLimit),
  HttpApiEndpoint.post("emailChangeBouncedVerifyNew", `${emailChange}/bounced/verify-new`, {
    payload: EmailChangeBouncedVerifyNewRequest,
    success: UserPrivateResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("email-change.bounced-verify-new")).middleware(RateLimit),
  HttpApiEndpoint.post("passwordChangeStart", `${passwordChange}/start`, {
    payload: EmptyBodyRequest,
    success: PasswordChangeStartResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("password-change.start")).middleware(RateLimit),
  HttpApiEndpoint.post("passwordChangeResend", `${passwordChange}/resend`, {
    payload: PasswordChangeTicketRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("password-change.resend")).middleware(RateLimit),
  HttpApiEndpoint.post("passwordChangeVerify", `${passwordChange}/verify`, {
    payload: PasswordChangeVerifyRequest,
    success: PasswordChangeVerifyResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("password-change.verify")).middleware(RateLimit),
  HttpApiEndpoint.post("passwordChangeComplete", `${passwordChange}/complete`, {
    payload: PasswordChangeCompleteRequest,
    success: PasswordChangeCompleteResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("password-change.complete")).middleware(RateLimit)
).middleware(UserAuthentication) {}
