import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { createHash } from "node:crypto"
import { refusal, type StandingRow } from "../auth/Standing.ts"
import { BadRequest } from "../model/Errors.ts"
import { newToken, tokenHash } from "../platform/Crypto.ts"

/** conventions.md: OAuth2 access tokens live 7 days. */
export const ACCESS_TOKEN_SECONDS = 7 * 24 * 60 * 60
const CODE_LIFETIME = "10 minutes"

/** What an access token grants. */
export interface Grant {
  readonly applicationId: string
  readonly userId: string
  readonly scopes: ReadonlyArray<string>
  readonly createdAt: Date
  readonly expiresAt: Date
}

export interface NewCode {
  readonly applicationId: string
  readonly userId: string
  readonly redirectUri: string
  readonly scopes: ReadonlyArray<string>
  readonly codeChallenge: string | undefined
  readonly codeChallengeMethod: "S256" | "plain" | undefined
}

/** OAuth2TokenResponse. */
export interface IssuedTokens {
  readonly access_token: string
  readonly token_type: "Bearer"
  readonly expires_in: number
  readonly refresh_token: string
  readonly scope: string
}

export interface Authorization {
  readonly applicationId: string
  readonly scopes: ReadonlyArray<string>
  readonly authorizedAt: Date
}

const invalidGrant = () => new BadRequest({ code: "INVALID_GRANT", message: "The code or refresh token is invalid or expired" })

interface TokenRow {
  readonly application_id: string
  readonly user_id: string
  readonly scopes: ReadonlyArray<string>
  readonly created_at: Date | string
  readonly expires_at: Date | string
}

const toGrant = (row: TokenRow): Grant => ({
  applicationId: String(row.application_id),
  userId: String(row.user_id),
  scopes: row.scopes,
  createdAt: new Date(row.created_at),
  expiresAt: new Date(row.expires_at)
})

/** PKCE (RFC 7636): the verifier matches the challenge consent recorded; no challenge, nothing to match. */
const verifierMatches = (challenge: string | null, method: string | null, verifier: string | undefined) => {
  if (challenge === null) return true
  if (verifier === undefined) return false
  return (method === "S256" ? createHash("sha256").update(verifier).digest("base64url") : verifier) === challenge
}

/**
 * The authorization-code grant and refresh tokens (RFC 6749). Codes, access
 * and refresh tokens are random and stored as SHA-256 hashes; a code is
 * redeemed once, a refresh replaces the pair it belongs to.
 */
export class OAuth2Grants extends Context.Service<OAuth2Grants, {
  readonly issueCode: (code: NewCode) => Effect.Effect<string>
  readonly redeemCode: (applicationId: string, code: string, redirectUri: string, verifier: string | undefined) => Effect.Effect<IssuedTokens, BadRequest>
  readonly refresh: (applicationId: string, refreshToken: string) => Effect.Effect<IssuedTokens, BadRequest>
  /** The live grant of an access token, or undefined. */
  readonly access: (accessToken: string) => Effect.Effect<Grant | undefined>
  /** An access or refresh token of the application, for introspection. */
  readonly inspect: (applicationId: string, token: string) => Effect.Effect<{ readonly refresh: boolean; readonly grant: Grant } | undefined>
  /** Ends the pair `token` (access or refresh) belongs to; another application's token is left alone. */
  readonly revoke: (applicationId: string, token: string) => Effect.Effect<void>
  /** The applications holding tokens of the user, with the scopes granted. */
  readonly authorizations: (userId: string) => Effect.Effect<ReadonlyArray<Authorization>>
}>()("guildhall/OAuth2Grants") {
  static readonly layer = Layer.effect(
    OAuth2Grants,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const issue = (applicationId: string, userId: string, scopes: ReadonlyArray<string>, authorizedAt: Date | string) =>
        Effect.gen(function*() {
          const access = newToken()
          const refresh = newToken()
          yield* sql`
            INSERT INTO oauth2_tokens (access_hash, refresh_hash, application_id, user_id, scopes, authorized_at, expires_at)
            VALUES (${tokenHash(access)}, ${tokenHash(refresh)}, ${applicationId}, ${userId}, ${[...scopes]}::text[],
                    ${new Date(authorizedAt)}, now() + ${`${ACCESS_TOKEN_SECONDS} seconds`}::interval)`
          const issued: IssuedTokens = {
            access_token: access,
            token_type: "Bearer",
            expires_in: ACCESS_TOKEN_SECONDS,
            refresh_token: refresh,
            scope: scopes.join(" ")
          }
          return issued
        })

      const issueCode = Effect.fn("OAuth2Grants.issueCode")(function*(code: NewCode) {
        const secret = newToken()
        yield* sql`
          INSERT INTO oauth2_codes (code_hash, application_id, user_id, redirect_uri, scopes, code_challenge,
                                    code_challenge_method, expires_at)
          VALUES (${tokenHash(secret)}, ${code.applicationId}, ${code.userId}, ${code.redirectUri}, ${[...code.scopes]}::text[],
                  ${code.codeChallenge ?? null}, ${code.codeChallengeMethod ?? null}, now() + ${CODE_LIFETIME}::interval)`
        return secret
      }, Effect.orDie)

      // Taking the row is what makes a code single use, even under concurrent redemptions.
      const redeemCode = Effect.fn("OAuth2Grants.redeemCode")(function*(
        applicationId: string,
        code: string,
        redirectUri: string,
        verifier: string | undefined
      ) {
        const [row] = yield* sql<{
          application_id: string
          user_id: string
          redirect_uri: string
          scopes: ReadonlyArray<string>
          code_challenge: string | null
          code_challenge_method: string | null
        }>`DELETE FROM oauth2_codes WHERE code_hash = ${tokenHash(code)} AND expires_at > now()
           RETURNING application_id, user_id, redirect_uri, scopes, code_challenge, code_challenge_method`
        if (
          row === undefined || String(row.application_id) !== applicationId || row.redirect_uri !== redirectUri ||
          !verifierMatches(row.code_challenge, row.code_challenge_method, verifier)
        ) return yield* invalidGrant()
        return yield* issue(applicationId, String(row.user_id), row.scopes, new Date())
      }, Effect.catchTag("SqlError", Effect.die))

      const refresh = Effect.fn("OAuth2Grants.refresh")((applicationId: string, refreshToken: string) =>
        sql.withTransaction(Effect.gen(function*() {
          const [row] = yield* sql<{ user_id: string; scopes: ReadonlyArray<string>; authorized_at: Date | string }>`
            DELETE FROM oauth2_tokens WHERE refresh_hash = ${tokenHash(refreshToken)} AND application_id = ${applicationId}
            RETURNING user_id, scopes, authorized_at`
          if (row === undefined) return yield* invalidGrant()
          return yield* issue(applicationId, String(row.user_id), row.scopes, row.authorized_at)
        })).pipe(Effect.catchTag("SqlError", Effect.die)))

      // Read on every request: a user an operator banned (Standing.ts) is refused from the next one on.
      const access = Effect.fn("OAuth2Grants.access")((accessToken: string) =>
        sql<TokenRow & StandingRow>`
          SELECT t.application_id, t.user_id, t.scopes, t.created_at, t.expires_at,
                 u.banned_at, u.temp_banned_until, u.suspicious_activity_flags, u.deletion_reason_code, u.deletion_scheduled_at
          FROM oauth2_tokens t JOIN users u ON u.id = t.user_id
          WHERE t.access_hash = ${tokenHash(accessToken)} AND t.expires_at > now()`.pipe(
          Effect.map((rows) => rows[0] === undefined || refusal(rows[0], Date.now()) !== undefined ? undefined : toGrant(rows[0])),
          Effect.orDie
        ))

      const inspect = Effect.fn("OAuth2Grants.inspect")(function*(applicationId: string, token: string) {
        const hash = tokenHash(token)
        const [row] = yield* sql<TokenRow & { refresh: boolean }>`
          SELECT application_id, user_id, scopes, created_at, expires_at, refresh_hash = ${hash} AS refresh
          FROM oauth2_tokens
          WHERE application_id = ${applicationId}
            AND ((access_hash = ${hash} AND expires_at > now()) OR refresh_hash = ${hash})`
        return row === undefined ? undefined : { refresh: row.refresh, grant: toGrant(row) }
      }, Effect.orDie)

      const revoke = Effect.fn("OAuth2Grants.revoke")((applicationId: string, token: string) => {
        const hash = tokenHash(token)
        return sql`DELETE FROM oauth2_tokens WHERE application_id = ${applicationId} AND (access_hash = ${hash} OR refresh_hash = ${hash})`
          .pipe(Effect.asVoid, Effect.orDie)
      })

      const authorizations = Effect.fn("OAuth2Grants.authorizations")((userId: string) =>
        sql<{ application_id: string; scopes: ReadonlyArray<string>; authorized_at: Date | string }>`
          SELECT t.application_id, array_agg(DISTINCT s.scope) AS scopes, min(t.authorized_at) AS authorized_at
          FROM oauth2_tokens t, unnest(t.scopes) AS s (scope)
          WHERE t.user_id = ${userId}
          GROUP BY t.application_id ORDER BY min(t.authorized_at)`.pipe(
          Effect.map((rows) =>
            rows.map((row): Authorization => ({
              applicationId: String(row.application_id),
              scopes: row.scopes,
              authorizedAt: new Date(row.authorized_at)
            }))
          ),
          Effect.orDie
        ))

      return OAuth2Grants.of({ issueCode, redeemCode, refresh, access, inspect, revoke, authorizations })
    })
  )
}
