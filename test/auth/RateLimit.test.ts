import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Effect, type Scope } from "effect"
import { Redis } from "ioredis"
import { randomUUID } from "node:crypto"
import { RateLimiter } from "../../src/ratelimit/RateLimiter.ts"
import { TestApi } from "../support/Api.ts"
import { requestFrom } from "./fromAddress.ts"
import { numberIn } from "./json.ts"

/** The limiter's contract, for each implementation. */
const contract = (name: string, make: Effect.Effect<RateLimiter["Service"], never, Scope.Scope>) =>
  describe(`${name} rate limiter`, () => {
    it.live("lets `limit` hits through per window, then refuses until the window closes", () =>
      Effect.scoped(Effect.gen(function*() {
        const limiter = yield* make
        const check = { key: `k-${randomUUID()}`, limit: 3, windowMillis: 400 }
        const verdicts = []
        for (let i = 0; i < 4; i++) verdicts.push((yield* limiter.hit([check]))[0])
        assert.deepStrictEqual(verdicts.map((v) => v?.allowed), [true, true, true, false])
        assert.deepStrictEqual(verdicts.map((v) => v?.remaining), [2, 1, 0, 0])
        for (const v of verdicts) {
          assert.strictEqual(v?.limit, 3)
          assert.isAtMost(v?.resetAfterMillis ?? -1, 400)
          assert.isAtLeast(v?.resetAfterMillis ?? -1, 0)
        }
        yield* Effect.sleep("450 millis")
        const fresh = (yield* limiter.hit([check]))[0]
        assert.strictEqual(fresh?.allowed, true)
        assert.strictEqual(fresh?.remaining, 2)
      })))

    it.live("counts each key of a request on its own", () =>
      Effect.scoped(Effect.gen(function*() {
        const limiter = yield* make
        const tight = { key: `t-${randomUUID()}`, limit: 1, windowMillis: 10_000 }
        const loose = { key: `l-${randomUUID()}`, limit: 5, windowMillis: 10_000 }
        yield* limiter.hit([tight, loose])
        const [t, l] = yield* limiter.hit([tight, loose])
        assert.strictEqual(t?.allowed, false)
        assert.strictEqual(l?.allowed, true)
        assert.strictEqual(l?.remaining, 3)
        assert.isAbove(t?.resetAfterMillis ?? 0, 9_000)
      })))
  })

contract("memory", Effect.sync(() => RateLimiter.memory()))

const prefix = `guildhall-test-${randomUUID()}:`
contract(
  "Redis",
  Effect.map(
    Effect.acquireRelease(
      Effect.promise(async () => {
        const redis = new Redis("redis://127.0.0.1:6379", { lazyConnect: true })
        await redis.connect()
        return redis
      }),
      (redis) =>
        Effect.promise(async () => {
          const keys = await redis.keys(`${prefix}*`)
          if (keys.length > 0) await redis.del(...keys)
          await redis.quit()
        })
    ),
    (redis) => RateLimiter.redis(redis, prefix)
  )
)

const PASSWORD = "correct horse battery"

layer(TestApi.layerWithOutside({ RATE_LIMITS: "on" }), { timeout: 120_000, excludeTestServices: true })(
  "rate limits over HTTP",
  (it) => {
    it.effect("the 11th login within 10 s from one address gets 429 RATE_LIMITED; another address does not", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const { email } = yield* api.register()
        const first = yield* api.request("POST", "/auth/login", { body: { email, password: PASSWORD } })
        assert.strictEqual(first.status, 200)
        assert.strictEqual(first.headers.get("x-ratelimit-limit"), "10")
        assert.strictEqual(first.headers.get("x-ratelimit-remaining"), "9")
        const reset = Number(first.headers.get("x-ratelimit-reset"))
        assert.approximately(reset, Date.now() / 1000 + 10, 2)
        for (let i = 2; i <= 10; i++) {
          const reply = yield* api.request("POST", "/auth/login", { body: { email, password: "not the password" } })
          assert.strictEqual(reply.status, 400, `login ${i}`)
          assert.strictEqual(reply.headers.get("x-ratelimit-remaining"), String(10 - i))
        }
        const limited = yield* api.request("POST", "/auth/login", { body: { email, password: PASSWORD } })
        assert.strictEqual(limited.status, 429)
        expect(limited.body).toMatchObject({ code: "RATE_LIMITED", global: false })
        const retryAfter = numberIn(limited.body, "retry_after")
        assert.isAbove(retryAfter, 0)
        assert.isAtMost(retryAfter, 10)
        assert.strictEqual(limited.headers.get("retry-after"), String(Math.ceil(retryAfter)))
        assert.strictEqual(limited.headers.get("x-ratelimit-global"), "false")
        assert.strictEqual(limited.headers.get("x-ratelimit-remaining"), "0")

        // Buckets are per IP (and per route): another address and another route are unaffected.
        const elsewhere = yield* requestFrom(api.baseUrl, "127.0.0.5", "POST", "/auth/login", {
          body: { email, password: "not the password" }
        })
        assert.strictEqual(elsewhere.status, 400)
        assert.strictEqual(elsewhere.headers.get("x-ratelimit-remaining"), "9")
        const suggestions = yield* api.request("POST", "/auth/username-suggestions", { body: { global_name: "Rate Limited" } })
        assert.strictEqual(suggestions.status, 200)
        assert.strictEqual(suggestions.headers.get("x-ratelimit-limit"), "30")
      }))

    it.effect("authenticated routes count per user", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const alice = yield* api.register()
        const bob = yield* api.register()
        const statuses = []
        for (let i = 0; i < 4; i++) {
          statuses.push((yield* api.request("POST", "/auth/verify/resend", { token: alice.token })).status)
        }
        assert.deepStrictEqual(statuses, [204, 204, 204, 429])
        const other = yield* api.request("POST", "/auth/verify/resend", { token: bob.token })
        assert.strictEqual(other.status, 204)
        assert.strictEqual(other.headers.get("x-ratelimit-remaining"), "2")
      }))
  }
)
