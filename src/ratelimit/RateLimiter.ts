import { Context, Effect, Layer, Option, Redacted } from "effect"
import type { Redis } from "ioredis"
import { createHash } from "node:crypto"
import { AppConfig } from "../platform/Config.ts"
import { RedisClient } from "../platform/Redis.ts"

/** One counter to bump: at most `limit` hits per window of `windowMillis`, the window opening at the first hit. */
export interface Check {
  readonly key: string
  readonly limit: number
  readonly windowMillis: number
}

export interface Verdict {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Milliseconds until the window closes and the counter starts over. */
  readonly resetAfterMillis: number
}

const verdict = (check: Check, count: number, resetAfterMillis: number): Verdict => ({
  allowed: count <= check.limit,
  limit: check.limit,
  remaining: Math.max(0, check.limit - count),
  resetAfterMillis: Math.max(0, resetAfterMillis)
})

/**
 * Counters of the rate limits (conventions.md, "Rate limits"). A window opens
 * with the first hit of a key and lasts `windowMillis`, so "10 per 10 s" means
 * the 11th hit within 10 s of the first is refused, wherever the clock stands.
 */
export class RateLimiter extends Context.Service<RateLimiter, {
  /** Counts one hit on every check and answers each one's verdict, in order. */
  readonly hit: (checks: ReadonlyArray<Check>) => Effect.Effect<ReadonlyArray<Verdict>>
}>()("guildhall/RateLimiter") {
  /** One process's counters in memory (embedded mode: there is only one process). */
  static readonly memory = (): RateLimiter["Service"] => {
    const windows = new Map<string, { count: number; endsAt: number }>()
    let hitsSinceSweep = 0
    const sweep = (now: number) => {
      for (const [key, window] of windows) if (window.endsAt <= now) windows.delete(key)
    }
    return RateLimiter.of({
      // On every request: unnamed, since Effect.fn's span and call-site capture (about 4 µs a call)
      // cost a tenth of a request here (npm run bench).
      hit: (checks) =>
        Effect.sync(() => {
          const now = Date.now()
          if (++hitsSinceSweep >= 10_000) {
            hitsSinceSweep = 0
            sweep(now)
          }
          return checks.map((check) => {
            let window = windows.get(check.key)
            if (window === undefined || window.endsAt <= now) {
              window = { count: 0, endsAt: now + check.windowMillis }
              windows.set(check.key, window)
            }
            window.count++
            return verdict(check, window.count, window.endsAt - now)
          })
        })
    })
  }

  /**
   * Counters in Redis, shared by every API process: one script call per request
   * bumps all its keys (INCR, and PEXPIRE when the window opens). When Redis
   * cannot answer the request is let through: a limiter outage must not become
   * an API outage.
   */
  static readonly redis = (redis: Redis, prefix: string): RateLimiter["Service"] => {
    const sha = createHash("sha1").update(HIT_SCRIPT).digest("hex")
    const run = async (checks: ReadonlyArray<Check>): Promise<unknown> => {
      const keys = checks.map((c) => prefix + c.key)
      const windows = checks.map((c) => String(c.windowMillis))
      try {
        return await redis.evalsha(sha, keys.length, ...keys, ...windows)
      } catch (error) {
        if (!String(error).includes("NOSCRIPT")) throw error
        return await redis.eval(HIT_SCRIPT, keys.length, ...keys, ...windows)
      }
    }
    return RateLimiter.of({
      // On every request: unnamed, since Effect.fn's span and call-site capture (about 4 µs a call)
      // cost a tenth of a request here (npm run bench).
      hit: (checks) =>
        Effect.tryPromise(() => run(checks)).pipe(
          Effect.map((reply) =>
            checks.map((check, i) => {
              const pair = Array.isArray(reply) ? [reply[2 * i], reply[2 * i + 1]] : []
              const count = typeof pair[0] === "number" ? pair[0] : 0
              const ttl = typeof pair[1] === "number" ? pair[1] : check.windowMillis
              return verdict(check, count, ttl)
            })
          ),
          Effect.catch((error) =>
            Effect.as(
              Effect.logWarning("rate limiter: Redis did not answer, letting the request through", error),
              checks.map((check) => verdict(check, 0, check.windowMillis))
            )
          )
        )
    })
  }

  /** Never refuses; counts nothing (RATE_LIMITS=off). */
  static readonly off: RateLimiter["Service"] = RateLimiter.of({
    hit: (checks) => Effect.succeed(checks.map((check) => verdict(check, 0, check.windowMillis)))
  })

  /**
   * Redis when the deployment has one (REDIS_URL: the counters must be shared
   * by every API process), else memory. The cluster's Redis connection is
   * reused when this process already holds one.
   */
  static readonly layer = Layer.unwrap(
    Effect.gen(function*() {
      const settings = yield* AppConfig
      if (!settings.rateLimits) return Layer.succeed(RateLimiter, RateLimiter.off)
      if (Option.isNone(settings.redisUrl)) return Layer.sync(RateLimiter, RateLimiter.memory)
      const prefix = `${settings.redisKeyPrefix}ratelimit:`
      const shared = yield* Effect.serviceOption(RedisClient)
      if (Option.isSome(shared)) return Layer.succeed(RateLimiter, RateLimiter.redis(shared.value, prefix))
      return Layer.effect(RateLimiter, Effect.map(RedisClient, (redis) => RateLimiter.redis(redis, prefix))).pipe(
        Layer.provide(RedisClient.layerUrl(Redacted.value(settings.redisUrl.value)))
      )
    })
  )
}

/** KEYS: the counters; ARGV[i]: the window of KEYS[i] in ms. Answers count, ms left, for each key. */
const HIT_SCRIPT = `
local out = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    redis.call('PEXPIRE', key, ARGV[i])
    ttl = tonumber(ARGV[i])
  end
  out[#out + 1] = count
  out[#out + 1] = ttl
end
return out
`
