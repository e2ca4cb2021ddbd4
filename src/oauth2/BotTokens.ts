import { Cache, Context, Duration, Effect, Exit, Layer, Schema, Semaphore } from "effect"
import { SqlClient } from "effect/sql"
import { Passwords } from "../auth/Passwords.ts"
import { SessionCache } from "../auth/SessionCache.ts"
import { refusal, type StandingRow } from "../auth/Standing.ts"
import type { CurrentUser } from "../http/Authentication.ts"
import { Snowflake, UserId } from "../model/Ids.ts"
import { newToken, tokenHash } from "../platform/Crypto.ts"

/** A bot token: `<application id>.<secret>` (conventions.md), the secret as `newToken` makes it. */
const BOT_TOKEN = /^([0-9]{1,19})\.([A-Za-z0-9_-]{43})$/

const isSnowflake = Schema.is(Snowflake)

/** Whether `token` has the shape of a bot token (a session token has no dot). */
export const looksLikeBotToken = (token: string): boolean => BOT_TOKEN.test(token)

/** How long what a token resolved to is kept: a reset elsewhere in a cluster takes this long to reach a process. */
const CACHE_MILLIS = 5_000

/** argon2id holds 19 MiB a verification: a flood of wrong tokens waits here rather than exhausting memory. */
const CONCURRENT_VERIFICATIONS = 2

/**
 * Bot tokens. Only the argon2id hash of the secret is stored (conventions.md),
 * so a verification costs ~20 ms: what a token resolved to is cached for
 * `CACHE_MILLIS` (a reset forgets it here at once; other processes within
 * that time), and concurrent requests with one token share a single
 * verification.
 */
export class BotTokens extends Context.Service<BotTokens, {
  /** The bot a token authenticates, as the caller of a user route; undefined for a wrong or malformed token. */
  readonly resolve: (token: string) => Effect.Effect<CurrentUser["Service"] | undefined>
  /** A new token for the application's bot and the hash to store of it. */
  readonly issue: (applicationId: string) => Effect.Effect<{ readonly token: string; readonly hash: string }>
  /** Replaces the bot's token: the old one stops working. */
  readonly reset: (applicationId: string) => Effect.Effect<string>
  /** Drops what this process resolved of the bot's tokens (after its application is deleted). */
  readonly forget: (applicationId: string) => Effect.Effect<void>
}>()("guildhall/BotTokens") {
  static readonly layer = Layer.effect(
    BotTokens,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const passwords = yield* Passwords
      const verifications = yield* Semaphore.make(CONCURRENT_VERIFICATIONS)

      const lookup = (token: string) =>
        Effect.gen(function*() {
          const [, applicationId, secret] = BOT_TOKEN.exec(token) ?? []
          if (applicationId === undefined || secret === undefined || !isSnowflake(applicationId)) return undefined
          // An operator's ban of the bot user refuses its token as a ban refuses a person's login (Standing.ts).
          const rows = yield* sql<{ bot_token_hash: string } & StandingRow>`
            SELECT a.bot_token_hash, u.banned_at, u.temp_banned_until, COALESCE(u.suspicious_activity_flags, 0) AS suspicious_activity_flags,
                   u.deletion_reason_code, u.deletion_scheduled_at
            FROM applications a LEFT JOIN users u ON u.id = a.id WHERE a.id = ${applicationId}`
          const row = rows[0]
          const stored = row?.bot_token_hash
          if (row === undefined || stored === undefined || refusal(row, Date.now()) !== undefined) return undefined
          if (!(yield* verifications.withPermits(1)(passwords.verify(stored, secret)))) return undefined
          // A bot is the user of its application's id.
          const botId = UserId.make(applicationId)
          const user: CurrentUser["Service"] = {
            id: botId,
            session: { userId: botId, tokenHash: tokenHash(token) },
            applicationId
          }
          return user
        }).pipe(Effect.orDie)

      const cache = yield* Cache.makeWith(lookup, {
        capacity: 10_000,
        // A database failure is not remembered: the next request tries again.
        timeToLive: (exit) => Exit.isSuccess(exit) ? Duration.millis(CACHE_MILLIS) : Duration.zero
      })

      const issue = Effect.fn("BotTokens.issue")(function*(applicationId: string) {
        const secret = newToken()
        return { token: `${applicationId}.${secret}`, hash: yield* passwords.hash(secret) }
      })

      // A cached token names its application: drop this bot's entries, wrong tokens included.
      const forget = Effect.fn("BotTokens.forget")((applicationId: string) =>
        Effect.flatMap(Cache.keys(cache), (keys) =>
          Effect.forEach([...keys].filter((key) => key.startsWith(`${applicationId}.`)), (key) => Cache.invalidate(cache, key), {
            discard: true
          })))

      const reset = Effect.fn("BotTokens.reset")(function*(applicationId: string) {
        const { token, hash } = yield* issue(applicationId)
        yield* sql`UPDATE applications SET bot_token_hash = ${hash} WHERE id = ${applicationId}`
        yield* forget(applicationId)
        return token
      }, Effect.orDie)

      // Every session of a user ended (an operator's ban among others): this process forgets the bot's tokens at once,
      // so the ban is read again on the next request rather than after CACHE_MILLIS.
      const sessionCache = yield* Effect.serviceOption(SessionCache)
      if (sessionCache._tag === "Some") {
        sessionCache.value.onRevoked((revocation) => {
          if ("userId" in revocation) Effect.runFork(forget(revocation.userId))
        })
      }

      return BotTokens.of({ resolve: Effect.fn("BotTokens.resolve")((token) => Cache.get(cache, token)), issue, reset, forget })
    })
  )
}
