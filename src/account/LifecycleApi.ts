import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOnly } from "../http/Authentication.ts"
import { ApiErrors } from "../model/Errors.ts"
import { SudoVerificationRequest } from "../mfa/Schemas.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"

/** Per user; each carries a password or MFA guess, and nobody disables an account twice a minute. */
const bucket = (name: string) => ({ name: `account.${name}`, limit: 5, windowMillis: 60_000 })

/** Disabling and deleting one's own account: both need sudo mode (SudoVerificationSchema) and answer 204. */
export class AccountLifecycleApi extends HttpApiGroup.make("accountLifecycle").add(
  HttpApiEndpoint.post("disable", "/users/@me/disable", {
    payload: SudoVerificationRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("disable")).middleware(RateLimit),
  HttpApiEndpoint.post("delete", "/users/@me/delete", {
    payload: SudoVerificationRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("delete")).middleware(RateLimit)
).middleware(UserAuthentication) {}
