import { Context, Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { newToken, tokenHash } from "../platform/Crypto.ts"

/** What a secret is for; a secret of one kind never works as another. */
export type TokenKind =
  | "mfa_ticket"
  | "verify_email"
  | "password_reset"
  | "email_revert"
  | "ip_authorization"
  | "email_change_original"
  | "email_change_new"
  | "email_change_proof"
  | "password_change"
  | "phone_verification"
  | "handoff"
  | "webauthn_challenge"
  | "sso_state"

export interface Redeemed {
  readonly userId: string | null
  readonly data: Record<string, unknown>
}

/**
 * Secrets handed out once (MFA tickets, emailed tokens, handoff codes) and
 * redeemed at most once before they expire. Only their SHA-256 is stored;
 * redeeming is one atomic UPDATE, so two concurrent uses cannot both succeed.
 */
export class OneTimeTokens extends Context.Service<OneTimeTokens, {
  /** A new secret of `kind` for `userId`, valid for `ttl`. */
  readonly issue: (kind: TokenKind, userId: string | null, ttl: Duration.Input, data?: Record<string, unknown>) => Effect.Effect<string>
  /** Uses the secret up; undefined when unknown, of another kind, used or expired. */
  readonly redeem: (kind: TokenKind, token: string) => Effect.Effect<Redeemed | undefined>
  /** Reads a live secret without using it (a ticket that several steps present). */
  readonly peek: (kind: TokenKind, token: string) => Effect.Effect<Redeemed | undefined>
  /** Replaces the data of a live secret (a step that records progress on it). */
  readonly update: (kind: TokenKind, token: string, data: Record<string, unknown>) => Effect.Effect<boolean>
  /** Ends every live secret of `kind` of the user (a new one replaces them). */
  readonly revokeAll: (kind: TokenKind, userId: string) => Effect.Effect<void>
}>()("guildhall/OneTimeTokens") {
  static readonly layer = Layer.effect(
    OneTimeTokens,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      type Row = { user_id: string | null; data: Record<string, unknown> | string }
      const toRedeemed = (rows: ReadonlyArray<Row>): Redeemed | undefined => {
        const row = rows[0]
        if (row === undefined) return undefined
        const data = typeof row.data === "string" ? JSON.parse(row.data) as Record<string, unknown> : row.data
        return { userId: row.user_id === null ? null : String(row.user_id), data }
      }
      return OneTimeTokens.of({
        issue: Effect.fn("OneTimeTokens.issue")(function*(kind, userId, ttl, data = {}) {
          const token = newToken()
          const millis = Duration.toMillis(Duration.fromInputUnsafe(ttl))
          yield* sql`INSERT INTO one_time_tokens (token_hash, kind, user_id, data, expires_at)
                     VALUES (${tokenHash(token)}, ${kind}, ${userId}, ${JSON.stringify(data)}::jsonb,
                             now() + make_interval(secs => ${millis / 1000}))`
          return token
        }, Effect.orDie),
        redeem: Effect.fn("OneTimeTokens.redeem")((kind, token) =>
          sql<Row>`UPDATE one_time_tokens SET used_at = now()
                   WHERE token_hash = ${tokenHash(token)} AND kind = ${kind} AND used_at IS NULL AND expires_at > now()
                   RETURNING user_id, data`.pipe(Effect.map(toRedeemed), Effect.orDie)),
        peek: Effect.fn("OneTimeTokens.peek")((kind, token) =>
          sql<Row>`SELECT user_id, data FROM one_time_tokens
                   WHERE token_hash = ${tokenHash(token)} AND kind = ${kind} AND used_at IS NULL AND expires_at > now()`.pipe(
            Effect.map(toRedeemed),
            Effect.orDie
          )),
        update: Effect.fn("OneTimeTokens.update")((kind, token, data) =>
          sql`UPDATE one_time_tokens SET data = ${JSON.stringify(data)}::jsonb
              WHERE token_hash = ${tokenHash(token)} AND kind = ${kind} AND used_at IS NULL AND expires_at > now()
              RETURNING 1`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie)),
        revokeAll: Effect.fn("OneTimeTokens.revokeAll")((kind, userId) =>
          sql`UPDATE one_time_tokens SET used_at = now()
              WHERE user_id = ${userId} AND kind = ${kind} AND used_at IS NULL`.pipe(Effect.asVoid, Effect.orDie))
      })
    })
  )
}
