import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { GuildResponse } from "../model/Guilds.ts"
import { Credentials, UserAuthentication, userBotOrBearer, userOnly, userOrBot } from "../http/Authentication.ts"
import { Snowflake } from "../model/Ids.ts"
import { ApiErrors } from "../model/Errors.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"
import { UserProfileFullResponse } from "./ProfileSchemas.ts"
import { UserProfileQuery, UserTagCheckQuery, UserUpdateRequest } from "./Requests.ts"
import { UserPartialResponse, UserPrivateResponse, UserTagCheckResponse } from "../model/Users.ts"
import { TargetUserPath, UserPath } from "../http/Paths.ts"

const Limit = Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 200 }))

/** Per user. */
const bucket = (name: string, limit: number, windowSeconds: number) => ({
  name: `users.${name}`,
  limit,
  windowMillis: windowSeconds * 1000
})

export class UsersApi extends HttpApiGroup.make("users").add(
  HttpApiEndpoint.get("me", "/users/@me", { success: UserPrivateResponse, error: ApiErrors }).annotate(Credentials, userBotOrBearer("identify")),
  HttpApiEndpoint.patch("updateMe", "/users/@me", {
    payload: UserUpdateRequest,
    success: UserPrivateResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("update", 20, 60)).middleware(RateLimit),
  HttpApiEndpoint.get("myGuilds", "/users/@me/guilds", {
    query: {
      before: Schema.optional(Snowflake),
      after: Schema.optional(Snowflake),
      limit: Schema.optional(Limit),
      with_counts: Schema.optional(Schema.String)
    },
    success: Schema.Array(GuildResponse),
    error: ApiErrors
  }).annotate(Credentials, userBotOrBearer("guilds")),
  HttpApiEndpoint.get("checkTag", "/users/check-tag", {
    query: UserTagCheckQuery,
    success: UserTagCheckResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot).annotate(RateLimitBucket, bucket("check-tag", 30, 10)).middleware(RateLimit),
  HttpApiEndpoint.get("user", "/users/:user_id", {
    params: UserPath,
    success: UserPartialResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot).annotate(RateLimitBucket, bucket("get", 60, 10)).middleware(RateLimit),
  HttpApiEndpoint.get("profile", "/users/:target_id/profile", {
    params: TargetUserPath,
    query: UserProfileQuery,
    success: UserProfileFullResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot).annotate(RateLimitBucket, bucket("profile", 60, 10)).middleware(RateLimit)
).middleware(UserAuthentication) {}
