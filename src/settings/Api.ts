import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOnly } from "../http/Authentication.ts"
import { ApiErrors } from "../model/Errors.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"
import { UserSettingsResponse, UserSettingsUpdateRequest } from "../model/Settings.ts"

/** Per user. */
const bucket = (name: string, limit: number, windowSeconds: number) => ({
  name: `settings.${name}`,
  limit,
  windowMillis: windowSeconds * 1000
})

export class SettingsApi extends HttpApiGroup.make("settings").add(
  HttpApiEndpoint.get("get", "/users/@me/settings", { success: UserSettingsResponse, error: ApiErrors }).annotate(Credentials, userOnly)
    .annotate(RateLimitBucket, bucket("get", 60, 10))
    .middleware(RateLimit),
  HttpApiEndpoint.patch("update", "/users/@me/settings", {
    payload: UserSettingsUpdateRequest,
    success: UserSettingsResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("update", 30, 10)).middleware(RateLimit)
).middleware(UserAuthentication) {}
