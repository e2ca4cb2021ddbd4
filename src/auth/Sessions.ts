import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { newToken, tokenHash } from "../platform/Crypto.ts"

export interface Session {
  readonly userId: string
  readonly tokenHash: Buffer
}

/**
 * Session tokens. Resolved sessions are cached for a few seconds so that the
 * hot read path does not query Postgres on every request; a logout evicts the
 * local entry at once (other processes see it within the cache lifetime).
 */
export class Sessions extends Context.Service<Sessions, {
  readonly create: (userId: string, client: { ip: string | null; userAgent: string | null }) => Effect.Effect<string>
  readonly resolve: (token: string) => Effect.Effect<Session | undefined>
  readonly revoke: (session: Session) => Effect.Effect<void>
}>()("guildhall/Sessions") {
  static readonly cacheMillis = 5_000

  static readonly layer = Layer.effect(
    Sessions,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const cache = new Map<string, { session: Session; until: number }>()

      const create = (userId: string, client: { ip: string | null; userAgent: string | null }) =>
        Effect.gen(function*() {
          const token = newToken()
          yield* sql`INSERT INTO sessions (token_hash, user_id, client_ip, user_agent)
                     VALUES (${tokenHash(token)}, ${userId}, ${client.ip}, ${client.userAgent})`
          return token
        }).pipe(Effect.orDie)

      const resolve = (token: string) =>
        Effect.suspend(() => {
          const now = Date.now()
          const hit = cache.get(token)
          if (hit !== undefined && hit.until > now) return Effect.succeed<Session | undefined>(hit.session)
          const hash = tokenHash(token)
          return sql<{ user_id: string }>`SELECT user_id FROM sessions WHERE token_hash = ${hash}`.pipe(
            Effect.map((rows) => {
              const row = rows[0]
              if (row === undefined) return undefined
              const session: Session = { userId: row.user_id, tokenHash: hash }
              if (cache.size > 100_000) cache.clear()
              cache.set(token, { session, until: now + Sessions.cacheMillis })
              return session
            }),
            Effect.orDie
          )
        })

      const revoke = (session: Session) =>
        Effect.gen(function*() {
          for (const [token, entry] of cache) {
            if (entry.session.tokenHash.equals(session.tokenHash)) cache.delete(token)
          }
          yield* sql`DELETE FROM sessions WHERE token_hash = ${session.tokenHash}`
        }).pipe(Effect.orDie)

      return Sessions.of({ create, resolve, revoke })
    })
  )
}
