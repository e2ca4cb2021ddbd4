import { Context, Effect, Layer, Option } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { AppConfig } from "../platform/Config.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { TooManyRequests } from "../model/Errors.ts"
import { type Bucket, defaultLimit, globalLimit, RateLimit, RateLimitBucket } from "./RateLimit.ts"
import { RateLimiter, type Verdict } from "./RateLimiter.ts"

const seconds = (millis: number) => (millis / 1000).toFixed(3)

const headersOf = (bucket: Bucket, verdict: Verdict, now: number): Record<string, string> => ({
  "x-ratelimit-limit": String(verdict.limit),
  "x-ratelimit-remaining": String(verdict.remaining),
  "x-ratelimit-reset": seconds(now + verdict.resetAfterMillis),
  "x-ratelimit-reset-after": seconds(verdict.resetAfterMillis),
  "x-ratelimit-bucket": bucket.name
})

/**
 * The `RateLimit` middleware. With RATE_LIMITS=off it is a no-op (no counting,
 * no headers); the setting is logged at start so it is never off silently.
 */
export const RateLimitLive = Layer.effect(
  RateLimit,
  Effect.gen(function*() {
    const { rateLimits } = yield* AppConfig
    const limiter = yield* RateLimiter
    if (!rateLimits) {
      yield* Effect.logWarning("RATE_LIMITS=off: requests are not rate limited")
      return RateLimit.of((httpEffect) => httpEffect)
    }
    return RateLimit.of((httpEffect, { endpoint, group }) => {
      const bucket = Option.getOrElse(
        Context.getOption(endpoint.annotations, RateLimitBucket),
        (): Bucket => ({ name: `${group.identifier}.${endpoint.name}`, ...defaultLimit })
      )
      return Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const user = yield* Effect.serviceOption(CurrentUser)
        const subject = Option.isSome(user)
          ? `user:${user.value.id}`
          : `ip:${Option.getOrElse(request.remoteAddress, () => "unknown")}`
        const [overall, route] = yield* limiter.hit([
          { key: `global:${subject}`, ...globalLimit },
          { key: `${bucket.name}:${subject}`, limit: bucket.limit, windowMillis: bucket.windowMillis }
        ])
        if (overall === undefined || route === undefined) return yield* httpEffect
        const now = Date.now()
        const refused = !overall.allowed ? overall : !route.allowed ? route : undefined
        const headers = headersOf(bucket, route, now)
        if (refused !== undefined) {
          const global = refused === overall
          const retryAfter = refused.resetAfterMillis / 1000
          Object.assign(headers, {
            "retry-after": String(Math.max(1, Math.ceil(retryAfter))),
            "x-ratelimit-global": String(global)
          })
          yield* HttpEffect.appendPreResponseHandler((_request, response) =>
            Effect.succeed(HttpServerResponse.setHeaders(response, headers)))
          return yield* new TooManyRequests({
            code: "RATE_LIMITED",
            message: "You are being rate limited.",
            retry_after: Number(retryAfter.toFixed(3)),
            global
          })
        }
        yield* HttpEffect.appendPreResponseHandler((_request, response) =>
          Effect.succeed(HttpServerResponse.setHeaders(response, headers)))
        return yield* httpEffect
      })
    })
  })
)
