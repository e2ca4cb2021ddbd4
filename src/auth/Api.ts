import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOnly } from "../http/Authentication.ts"
import { BoundedText } from "../model/Common.ts"
import { ApiErrors } from "../model/Errors.ts"
import { UserPartialResponse } from "../model/Users.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"

const Email = Schema.String.check(
  Schema.isMaxLength(254, { message: "EMAIL_LENGTH_INVALID: Must be at most 254 in length" }),
  Schema.isPattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: "INVALID_EMAIL_FORMAT: Not a valid email address" })
)
/** Length is checked by the service, which answers PASSWORD_LENGTH_INVALID; this only caps what argon2 is fed. */
const Password = Schema.String.check(Schema.isMaxLength(1024))
/** An emailed token or a ticket: ours are 43 characters; anything longer is not one of ours. */
const Secret = Schema.String.check(Schema.isMaxLength(256))

export const RegisterRequest = Schema.Struct({
  email: Schema.optional(Email),
  username: Schema.optional(Schema.String.check(Schema.isMaxLength(64))),
  global_name: Schema.optional(Schema.String.check(Schema.isMaxLength(64))),
  password: Schema.optional(Password),
  date_of_birth: Schema.optional(Schema.String.check(Schema.isMaxLength(32))),
  consent: Schema.optional(Schema.Boolean),
  invite_code: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(64)))),
  registration_url_code: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(64)))),
  theme: Schema.optional(Schema.Literals(["dark", "dark_legacy", "coal", "light", "system"]))
})
export type RegisterRequest = typeof RegisterRequest.Type

export const LoginRequest = Schema.Struct({
  email: Email,
  password: Password,
  invite_code: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(64))))
})

export const AuthTokenWithUserIdResponse = Schema.Struct({ token: Schema.String, user_id: Schema.String, user: UserPartialResponse })

export const AuthMfaRequiredResponse = Schema.Struct({
  mfa: Schema.Literal(true),
  ticket: Schema.String,
  allowed_methods: Schema.Array(Schema.String),
  sms: Schema.Boolean,
  totp: Schema.Boolean,
  webauthn: Schema.Boolean,
  sms_phone_hint: Schema.optional(Schema.NullOr(Schema.String))
})

/** AuthLoginResponse and AuthRegisterResponse: a session, or the MFA step still to take. */
export const AuthLoginResponse = Schema.Union([AuthTokenWithUserIdResponse, AuthMfaRequiredResponse])

export const IpAuthorizationPollResponse = Schema.Struct({
  completed: Schema.Boolean,
  token: Schema.optional(Schema.NullOr(Schema.String)),
  user_id: Schema.optional(Schema.NullOr(Schema.String)),
  user: Schema.optional(Schema.NullOr(UserPartialResponse))
})

const TokenRequest = Schema.Struct({ token: Secret })
const TokenAndPasswordRequest = Schema.Struct({ token: Secret, password: Password })

const seconds = (n: number) => n * 1000
/** Buckets per IP (per user on authenticated routes): conventions.md gives login and register 10 per 10 s. */
const bucket = (name: string, limit: number, windowMillis: number) => ({ name: `auth.${name}`, limit, windowMillis })

export class AuthApi extends HttpApiGroup.make("auth").add(
  HttpApiEndpoint.post("register", "/auth/register", {
    payload: RegisterRequest,
    success: AuthLoginResponse,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("register", 10, seconds(10))).middleware(RateLimit),
  HttpApiEndpoint.post("login", "/auth/login", {
    payload: LoginRequest,
    success: AuthLoginResponse,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("login", 10, seconds(10))).middleware(RateLimit),
  HttpApiEndpoint.post("logout", "/auth/logout", { error: ApiErrors }).annotate(Credentials, userOnly)
    .annotate(RateLimitBucket, bucket("logout", 20, seconds(10)))
    .middleware(RateLimit)
    .middleware(UserAuthentication),
  HttpApiEndpoint.post("forgot", "/auth/forgot", {
    payload: Schema.Struct({ email: Email }),
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("forgot", 5, seconds(60))).middleware(RateLimit),
  HttpApiEndpoint.get("resetTokenStatus", "/auth/reset/:token", {
    params: { token: Secret },
    success: Schema.Struct({ valid: Schema.Boolean }),
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("reset", 10, seconds(60))).middleware(RateLimit),
  HttpApiEndpoint.post("reset", "/auth/reset", {
    payload: TokenAndPasswordRequest,
    success: AuthLoginResponse,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("reset", 10, seconds(60))).middleware(RateLimit),
  HttpApiEndpoint.post("emailRevert", "/auth/email-revert", {
    payload: TokenAndPasswordRequest,
    success: AuthLoginResponse,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("email-revert", 10, seconds(60))).middleware(RateLimit),
  HttpApiEndpoint.post("verify", "/auth/verify", {
    payload: TokenRequest,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("verify", 10, seconds(60))).middleware(RateLimit),
  HttpApiEndpoint.post("verifyResend", "/auth/verify/resend", { error: ApiErrors }).annotate(Credentials, userOnly)
    .annotate(RateLimitBucket, bucket("verify-resend", 3, seconds(300)))
    .middleware(RateLimit)
    .middleware(UserAuthentication),
  HttpApiEndpoint.post("authorizeIp", "/auth/authorize-ip", {
    payload: TokenRequest,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("authorize-ip", 10, seconds(60))).middleware(RateLimit),
  HttpApiEndpoint.post("ipAuthorizationResend", "/auth/ip-authorization/resend", {
    payload: Schema.Struct({ ticket: Secret }),
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("ip-authorization-resend", 5, seconds(60))).middleware(RateLimit),
  HttpApiEndpoint.get("ipAuthorizationPoll", "/auth/ip-authorization/poll", {
    query: { ticket: Secret },
    success: IpAuthorizationPollResponse,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("ip-authorization-poll", 60, seconds(60))).middleware(RateLimit),
  HttpApiEndpoint.post("usernameSuggestions", "/auth/username-suggestions", {
    payload: Schema.Struct({ global_name: BoundedText(1, 32, "GLOBAL_NAME_LENGTH_INVALID") }),
    success: Schema.Struct({ suggestions: Schema.Array(Schema.String) }),
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("username-suggestions", 30, seconds(10))).middleware(RateLimit)
) {}
