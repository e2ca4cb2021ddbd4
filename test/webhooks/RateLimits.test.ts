import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { RateLimiter } from "../../src/ratelimit/RateLimiter.ts"
import { WebhookBuckets, WebhookRateLimits } from "../../src/webhooks/RateLimits.ts"

const limits = WebhookRateLimits.layer.pipe(Layer.provide(Layer.sync(RateLimiter, RateLimiter.memory)))

describe("webhook rate limits", () => {
  it.effect("60 executes a minute per webhook, whoever calls; another webhook has its own count", () =>
    Effect.gen(function*() {
      const { take } = yield* WebhookRateLimits
      for (let i = 0; i < WebhookBuckets.execute.limit; i++) yield* take(WebhookBuckets.execute, "100")
      const refused = yield* Effect.exit(take(WebhookBuckets.execute, "100"))
      assert.isTrue(Exit.isFailure(refused))
      const error = yield* Effect.flip(take(WebhookBuckets.execute, "100"))
      assert.strictEqual(error.code, "RATE_LIMITED")
      assert.isFalse(error.global)
      assert.isTrue(error.retry_after > 0 && error.retry_after <= 60)
      yield* take(WebhookBuckets.execute, "200")
      // Reads are another bucket of the same webhook.
      yield* take(WebhookBuckets.read, "100")
    }).pipe(Effect.provide(limits)))
})
