import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOnly } from "../http/Authentication.ts"
import { BoundedText, SuccessResponse } from "../model/Common.ts"
import { ApiErrors } from "../model/Errors.ts"
import { PushSubscriptionsListResponse } from "../model/PushSubscriptions.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"
import { decodeKey, endpointProblem, isAuthSecret, isP256dh, MAX_ENDPOINT_LENGTH } from "./Keys.ts"

const Endpoint = Schema.String.check(
  Schema.isMaxLength(MAX_ENDPOINT_LENGTH, { message: `STRING_LENGTH_INVALID: Must be at most ${MAX_ENDPOINT_LENGTH} in length` }),
  Schema.makeFilter((text: string) => {
    const problem = endpointProblem(text)
    return problem === undefined || `INVALID_URL_FORMAT: ${problem}`
  })
)

const Key = (valid: (key: Buffer) => boolean, expected: string) =>
  Schema.String.check(
    Schema.isMaxLength(256, { message: `BASE64_LENGTH_INVALID: Expected ${expected}` }),
    Schema.makeFilter((text: string) => {
      const key = decodeKey(text)
      if (key === undefined) return "INVALID_BASE64_FORMAT: Expected base64url"
      return valid(key) || `BASE64_LENGTH_INVALID: Expected ${expected}`
    })
  )

/** PushSubscribeRequest: what `PushSubscription.toJSON()` gives, and optionally the device's user agent to show in the list. */
export const PushSubscribeRequest = Schema.Struct({
  endpoint: Endpoint,
  keys: Schema.Struct({
    p256dh: Key(isP256dh, "an uncompressed P-256 public key (65 bytes)"),
    auth: Key(isAuthSecret, "a 16-byte authentication secret")
  }),
  user_agent: Schema.optional(Schema.NullOr(BoundedText(0, 1024)))
})

export const PushSubscribeResponse = Schema.Struct({ subscription_id: Schema.String })

/** Ids are 32 hex characters; the cap only keeps junk out, anything else is simply unknown. */
const SubscriptionId = Schema.String.check(Schema.isMaxLength(64))

const bucket = (name: string, limit: number, windowSeconds: number) => ({
  name: `push.${name}`,
  limit,
  windowMillis: windowSeconds * 1000
})

/** Web Push subscriptions of the signed-in user's devices. */
export class PushApi extends HttpApiGroup.make("push").add(
  HttpApiEndpoint.post("subscribe", "/users/@me/push/subscribe", {
    payload: PushSubscribeRequest,
    success: PushSubscribeResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("subscribe", 10, 60)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.get("list", "/users/@me/push/subscriptions", {
    success: PushSubscriptionsListResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("list", 20, 10)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.delete("remove", "/users/@me/push/subscriptions/:subscription_id", {
    params: { subscription_id: SubscriptionId },
    success: SuccessResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("remove", 20, 10)).middleware(RateLimit).middleware(UserAuthentication)
) {}
