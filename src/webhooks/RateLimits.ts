import { Context, Effect, Layer } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { TooManyRequests } from "../model/Errors.ts"
import type { Bucket } from "../ratelimit/RateLimit.ts"
import { RateLimiter } from "../ratelimit/RateLimiter.ts"

/**
 * The production service's webhook buckets (WebhookRateLimitConfig), counted
 * per webhook whoever calls: an execute is limited by the webhook it posts
 * as, not by the address it comes from.
 */
export const WebhookBuckets = {
  read: { name: "webhook.read", limit: 100, windowMillis: 10_000 },
  update: { name: "webhook.update", limit: 20, windowMillis: 10_000 },
  delete: { name: "webhook.delete", limit: 20, windowMillis: 10_000 },
  execute: { name: "webhook.execute", limit: 60, windowMillis: 60_000 }
} as const satisfies Record<string, Bucket>

/** Takes one request of a webhook's bucket, or 429 RATE_LIMITED with Retry-After. */
export class WebhookRateLimits extends Context.Service<WebhookRateLimits, {
  readonly take: (bucket: Bucket, webhookId: string) => Effect.Effect<void, TooManyRequests>
}>()("guildhall/WebhookRateLimits") {
  static readonly layer = Layer.effect(
    WebhookRateLimits,
    Effect.gen(function*() {
      const limiter = yield* RateLimiter
      const take = Effect.fn("WebhookRateLimits.take")(function*(bucket: Bucket, webhookId: string) {
        const [verdict] = yield* limiter.hit([{ key: `${bucket.name}:webhook:${webhookId}`, limit: bucket.limit, windowMillis: bucket.windowMillis }])
        if (verdict === undefined) return
        const headers: Record<string, string> = {
          "x-ratelimit-limit": String(verdict.limit),
          "x-ratelimit-remaining": String(verdict.remaining),
          "x-ratelimit-reset-after": (verdict.resetAfterMillis / 1000).toFixed(3),
          "x-ratelimit-bucket": bucket.name,
          ...(verdict.allowed ? {} : {
            "retry-after": String(Math.max(1, Math.ceil(verdict.resetAfterMillis / 1000))),
            "x-ratelimit-global": "false"
          })
        }
        // Outside an HTTP request (no response to carry them) the headers are simply not set.
        const context = yield* Effect.context<never>()
        HttpEffect.appendPreResponseHandlerUnsafe(context, (_request, response) =>
          Effect.succeed(HttpServerResponse.setHeaders(response, headers)))
        if (verdict.allowed) return
        return yield* new TooManyRequests({
          code: "RATE_LIMITED",
          message: "You are being rate limited.",
          retry_after: Number((verdict.resetAfterMillis / 1000).toFixed(3)),
          global: false
        })
      })
      return WebhookRateLimits.of({ take })
    })
  )
}
