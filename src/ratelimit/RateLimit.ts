import { Context } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { TooManyRequests } from "../model/Errors.ts"

/** A route's bucket: at most `limit` requests per `windowMillis` for one user (or one IP when anonymous). */
export interface Bucket {
  readonly name: string
  readonly limit: number
  readonly windowMillis: number
}

/**
 * An endpoint's bucket, as an annotation:
 * `HttpApiEndpoint.post(...).annotate(RateLimitBucket, { name: "auth.login", limit: 10, windowMillis: 10_000 })`.
 * An endpoint behind `RateLimit` without one gets a bucket of its own with `defaultLimit`.
 */
export class RateLimitBucket extends Context.Service<RateLimitBucket, Bucket>()("guildhall/RateLimitBucket") {}

/** The global limit of conventions.md: per user or IP, across every limited route. */
export const globalLimit = { limit: 50, windowMillis: 1_000 } as const
export const defaultLimit = { limit: 50, windowMillis: 10_000 } as const

/** Every header a rate-limited answer may carry (RateLimitLive): browser scripts are allowed to read them (CORS). */
export const RATE_LIMIT_HEADERS = [
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "x-ratelimit-reset-after",
  "x-ratelimit-bucket",
  "x-ratelimit-global",
  "retry-after"
] as const

/**
 * Rate limiting of conventions.md for the endpoints it is put on. Put it on an
 * endpoint BEFORE `UserAuthentication` (`.middleware(RateLimit).middleware(UserAuthentication)`)
 * so that it runs inside it and counts per user; on anonymous routes it counts per IP.
 * Answers carry X-RateLimit-Limit/-Remaining/-Reset/-Reset-After/-Bucket; a refusal is
 * 429 RATE_LIMITED with `retry_after` and `global`, and Retry-After, X-RateLimit-Global.
 */
export class RateLimit extends HttpApiMiddleware.Service<RateLimit>()("guildhall/RateLimit", {
  error: [TooManyRequests]
}) {}
