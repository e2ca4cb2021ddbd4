import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOnly } from "../http/Authentication.ts"
import { BoundedText } from "../model/Common.ts"
import { ApiErrors } from "../model/Errors.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"
import { RelationshipResponse } from "../model/Relationships.ts"
import { UserPath } from "../http/Paths.ts"

/** UsernameType. */
const Username = Schema.String.check(
  Schema.isPattern(/^[a-zA-Z0-9_]{1,32}$/, { message: "INVALID_FORMAT: A username is 1 to 32 letters, digits or underscores" })
)
/**
 * DiscriminatorType is a string of 1 to 4 digits; the reference platform's own
 * clients also send it as a number, so both are read.
 */
const Discriminator = Schema.Union([
  Schema.String.check(Schema.isPattern(/^\d{1,4}$/, { message: "DISCRIMINATOR_INVALID_FORMAT: A discriminator is 1 to 4 digits" })),
  Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 9999 }, { message: "DISCRIMINATOR_OUT_OF_RANGE: A discriminator is 0 to 9999" }))
])

/** FriendRequestByTagRequest; a missing discriminator is answered with DISCRIMINATOR_REQUIRED, as clients expect. */
export const FriendRequestByTagRequest = Schema.Struct({
  username: Username,
  discriminator: Schema.optional(Discriminator)
})

/** FriendRequestCreateRequest; a request without a body is an ordinary friend request. */
export const FriendRequestCreateRequest = [
  Schema.Struct({ staff_force_accept: Schema.optional(Schema.Boolean) }),
  Schema.Null
] as const

/** RelationshipTypePutRequest: no type (or 1) accepts an incoming request, 2 blocks. */
export const RelationshipTypePutRequest = [
  Schema.Struct({ type: Schema.optional(Schema.Literals([1, 2])) }),
  Schema.Null
] as const

/** RelationshipNicknameUpdateRequest; an empty nickname clears it like null. */
export const RelationshipNicknameUpdateRequest = Schema.Struct({
  nickname: Schema.NullOr(BoundedText(0, 32))
})


/** Per user. Sending requests is what spam is made of, so it has the tightest bucket. */
const bucket = (name: string, limit: number, windowSeconds: number) => ({
  name: `relationships.${name}`,
  limit,
  windowMillis: windowSeconds * 1000
})

const relationships = "/users/@me/relationships"

export class RelationshipsApi extends HttpApiGroup.make("relationships").add(
  HttpApiEndpoint.get("list", relationships, {
    success: Schema.Array(RelationshipResponse),
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("list", 20, 10)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.post("requestByTag", relationships, {
    payload: FriendRequestByTagRequest,
    success: RelationshipResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("request", 10, 60)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.post("request", `${relationships}/:user_id`, {
    params: UserPath,
    payload: FriendRequestCreateRequest,
    success: RelationshipResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("request", 10, 60)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.put("put", `${relationships}/:user_id`, {
    params: UserPath,
    payload: RelationshipTypePutRequest,
    success: RelationshipResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("put", 20, 10)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.delete("remove", `${relationships}/:user_id`, {
    params: UserPath,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("remove", 20, 10)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.patch("nickname", `${relationships}/:user_id`, {
    params: UserPath,
    payload: RelationshipNicknameUpdateRequest,
    success: RelationshipResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("nickname", 20, 10)).middleware(RateLimit).middleware(UserAuthentication)
) {}
