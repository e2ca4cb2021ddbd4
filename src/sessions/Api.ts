import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { SudoFields } from "../auth/Sudo.ts"
import { Credentials, UserAuthentication, userOnly } from "../http/Authentication.ts"
import { Snowflake } from "../model/Ids.ts"
import { ApiErrors } from "../model/Errors.ts"
import { UserPartialResponse } from "../model/Users.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"

export const AuthSessionLocation = Schema.Struct({
  city: Schema.optional(Schema.NullOr(Schema.String)),
  region: Schema.optional(Schema.NullOr(Schema.String)),
  country: Schema.optional(Schema.NullOr(Schema.String))
})

export const AuthSessionClientInfo = Schema.Struct({
  platform: Schema.optional(Schema.NullOr(Schema.String)),
  os: Schema.optional(Schema.NullOr(Schema.String)),
  browser: Schema.optional(Schema.NullOr(Schema.String)),
  location: Schema.optional(Schema.NullOr(AuthSessionLocation))
})

export const AuthSessionResponse = Schema.Struct({
  id_hash: Schema.String,
  client_info: Schema.optional(Schema.NullOr(AuthSessionClientInfo)),
  masked_ip: Schema.NullOr(Schema.String),
  approx_last_used_at: Schema.optional(Schema.NullOr(Schema.String)),
  current: Schema.Boolean
})

/** A session id as the list shows it: base64url of the 32-byte SHA-256 of the token. */
export const SessionIdHash = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9_-]{43}$/, { message: "INVALID_FORMAT: Not a session id hash" })
)
export const MAX_LOGOUT_HASHES = 100

export const LogoutAuthSessionsRequest = Schema.Struct({
  session_id_hashes: Schema.Array(SessionIdHash).check(
    Schema.isMaxLength(MAX_LOGOUT_HASHES, { message: `At most ${MAX_LOGOUT_HASHES} session ids at once` })
  ),
  ...SudoFields
})

export const HandoffInitiateResponse = Schema.Struct({ code: Schema.String, expires_at: Schema.String })

export const HandoffStatusResponse = Schema.Struct({
  status: Schema.Literals(["pending", "completed", "expired"]),
  token: Schema.optional(Schema.NullOr(Schema.String)),
  user_id: Schema.optional(Schema.NullOr(Schema.String)),
  user: Schema.optional(Schema.NullOr(UserPartialResponse))
})

export const HandoffInfoResponse = Schema.Struct({
  status: Schema.Literals(["pending", "completed", "expired"]),
  client_info: Schema.optional(Schema.NullOr(Schema.Struct({
    platform: Schema.optional(Schema.NullOr(Schema.String)),
    os: Schema.optional(Schema.NullOr(Schema.String)),
    location: Schema.optional(Schema.NullOr(AuthSessionLocation))
  })))
})

/** Codes look like `ABCD-EFGH`; the cap only keeps junk out, the service reads the format. */
const HandoffCode = Schema.String.check(Schema.isMaxLength(32, { message: "INVALID_HANDOFF_CODE: Not a handoff code" }))

export const HandoffCompleteRequest = Schema.Struct({
  code: HandoffCode,
  /** The completing device's own session token; the Authorization header may carry it instead. */
  token: Schema.optional(Schema.String.check(Schema.isMaxLength(256))),
  user_id: Snowflake
})

/** Per user on the session routes, per IP on the anonymous handoff routes; a device polls its handoff every second or two. */
const bucket = (name: string, limit: number, windowSeconds: number) => ({
  name: `sessions.${name}`,
  limit,
  windowMillis: windowSeconds * 1000
})

export class SessionsApi extends HttpApiGroup.make("sessions").add(
  HttpApiEndpoint.get("listSessions", "/auth/sessions", {
    success: Schema.Array(AuthSessionResponse),
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("list", 20, 10)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.post("logoutSessions", "/auth/sessions/logout", {
    payload: LogoutAuthSessionsRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("logout", 10, 10)).middleware(RateLimit).middleware(UserAuthentication),
  // The handoff routes carry no Authorization requirement: the new device has no
  // session yet, and the completing device proves itself with its token.
  HttpApiEndpoint.post("handoffInitiate", "/auth/handoff/initiate", {
    success: HandoffInitiateResponse,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("handoff-initiate", 10, 60)).middleware(RateLimit),
  HttpApiEndpoint.post("handoffComplete", "/auth/handoff/complete", {
    payload: HandoffCompleteRequest,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("handoff-complete", 10, 60)).middleware(RateLimit),
  HttpApiEndpoint.get("handoffStatus", "/auth/handoff/:code/status", {
    params: { code: HandoffCode },
    success: HandoffStatusResponse,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("handoff-status", 120, 60)).middleware(RateLimit),
  HttpApiEndpoint.get("handoffInfo", "/auth/handoff/:code/info", {
    params: { code: HandoffCode },
    success: HandoffInfoResponse,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("handoff-info", 20, 60)).middleware(RateLimit),
  HttpApiEndpoint.delete("handoffCancel", "/auth/handoff/:code", {
    params: { code: HandoffCode },
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("handoff-cancel", 20, 60)).middleware(RateLimit)
) {}
