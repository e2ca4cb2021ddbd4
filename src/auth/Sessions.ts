import { Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { UserEvents } from "../../shards/UserEvents.ts"
import { endSessionSubscriptions } from "../../shards/user/operations/PushSubscriptions.ts"
import { UserActors } from "../guilds/UserActors.ts"
import { NotFound } from "../model/Errors.ts"
import { newToken, tokenHash } from "../platform/Crypto.ts"
import { type CachedSession, SessionCache } from "./SessionCache.ts"
import type { UserId } from "../model/Ids.ts"

export interface Session {
  readonly userId: UserId
  readonly tokenHash: Buffer
}

/** A stored session as the session list shows it. */
export interface StoredSession {
  readonly tokenHash: Buffer
  readonly clientIp: string | null
  readonly userAgent: string | null
  readonly createdAt: Date
  readonly lastUsedAt: Date
}

/** `last_used_at` is approximate: written when a lookup finds it older than this. */
const TOUCH_AFTER_SECONDS = 60
const TOUCH_AFTER_MILLIS = TOUCH_AFTER_SECONDS * 1000

/**
 * Session tokens. Resolved sessions are kept in a cache until revoked
 * (SessionCache.ts), so that authenticating a request does not query Postgres;
 * every revocation is applied on every API process before it returns.
 *
 * Every login and logout is told to the user's gateway sessions as
 * AUTH_SESSION_CHANGE. The reference gives no shape for it; ours is the
 * minimal `{auth_session_id_hash}` of the session that began or ended, the
 * `id_hash` of GET /auth/sessions, so a client can refresh that list.
 */
export class Sessions extends Context.Service<Sessions, {
  readonly create: (userId: string, client: { ip: string | null; userAgent: string | null }) => Effect.Effect<string>
  readonly resolve: (token: string) => Effect.Effect<Session | undefined>
  readonly revoke: (session: Session) => Effect.Effect<void>
  /** Ends every session of the user (a password reset, an email revert, an operator): how many there were. */
  readonly revokeAllOf: (userId: string) => Effect.Effect<number>
  /** The user's sessions, most recently used first. */
  readonly list: (userId: string) => Effect.Effect<ReadonlyArray<StoredSession>>
  /** Ends those of the listed sessions that belong to the user; others' hashes are ignored. */
  readonly revokeMany: (userId: string, hashes: ReadonlyArray<Buffer>) => Effect.Effect<void>
}>()("guildhall/Sessions") {
  static readonly layer = Layer.effect(
    Sessions,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const userEvents = yield* UserEvents
      const cache = yield* SessionCache
      // Absent only where no actors run (tests of the auth flows alone).
      const userActors = yield* Effect.serviceOption(UserActors)

      // Callers end sessions outside transactions, so these follow the commit.
      const announce = (userId: string, hashes: ReadonlyArray<Uint8Array>) =>
        Effect.forEach(hashes, (hash) =>
          userEvents.publish([userId], {
            type: "AUTH_SESSION_CHANGE",
            data: JSON.stringify({ auth_session_id_hash: Buffer.from(hash).toString("base64url") })
          }), { discard: true })

      /**
       * Signed out: the sessions' push subscriptions went with their rows (ON DELETE
       * CASCADE), and the user's actor, which lists them, drops them too. A user
       * deleted meanwhile has no actor to tell.
       */
      const ended = (userId: string, hashes: ReadonlyArray<Uint8Array>) =>
        Effect.andThen(
          announce(userId, hashes),
          hashes.length === 0 || Option.isNone(userActors) ? Effect.void : userActors.value.write(
            userId,
            endSessionSubscriptions,
            { sessionHashes: hashes.map((hash) => Buffer.from(hash).toString("hex")) },
            { actorId: userId }
          ).pipe(Effect.catch((e) =>
            e instanceof NotFound ? Effect.void : Effect.logWarning("signed-out sessions' push subscriptions still listed", e)
          ))
        )

      const create = Effect.fn("Sessions.create")(function*(
        userId: string,
        client: { ip: string | null; userAgent: string | null }
      ) {
        const token = newToken()
        const hash = tokenHash(token)
        yield* sql`INSERT INTO sessions (token_hash, user_id, client_ip, user_agent)
                   VALUES (${hash}, ${userId}, ${client.ip}, ${client.userAgent})`
        yield* announce(userId, [hash])
        return token
      }, Effect.orDie)

      // Written once the row is older than TOUCH_AFTER_SECONDS, at most once a minute per
      // session and process, off the request's path; the WHERE keeps it to one write
      // a minute whatever the number of processes.
      const touch = (hash: Buffer) =>
        sql`UPDATE sessions SET last_used_at = now()
            WHERE token_hash = ${hash} AND last_used_at < now() - make_interval(secs => ${TOUCH_AFTER_SECONDS})`.pipe(
          Effect.ignore,
          Effect.forkDetach,
          Effect.asVoid
        )

      const lookup = (token: string) => {
        const hash = tokenHash(token)
        return sql<{ user_id: UserId; idle_millis: number }>`
          SELECT user_id, (extract(epoch FROM now() - last_used_at) * 1000)::float8 AS idle_millis
          FROM sessions WHERE token_hash = ${hash}`.pipe(
          Effect.flatMap((rows) => {
            const row = rows[0]
            if (row === undefined) return Effect.succeed(undefined)
            const now = Date.now()
            const stale = row.idle_millis >= TOUCH_AFTER_MILLIS
            const found: CachedSession = { session: { userId: row.user_id, tokenHash: hash }, touchedAt: stale ? now : now - row.idle_millis }
            return stale ? Effect.as(touch(hash), found) : Effect.succeed(found)
          }),
          Effect.orDie
        )
      }

      // On every authenticated request: unnamed, since Effect.fn's span and call-site capture
      // (about 4 µs a call) cost a tenth of a request here (npm run bench).
      const resolve = (token: string) =>
        Effect.suspend(() => {
          const hit = cache.get(token)
          if (hit === undefined) return Effect.map(cache.fill(token, lookup(token)), (found) => found?.session)
          const now = Date.now()
          if (now - hit.touchedAt < TOUCH_AFTER_MILLIS) return Effect.succeed<Session | undefined>(hit.session)
          hit.touchedAt = now
          return Effect.as(touch(hit.session.tokenHash), hit.session)
        })

      // Each evicts after the DELETE committed: a lookup that read a row before it is then not cached.
      const revoke = Effect.fn("Sessions.revoke")(function*(session: Session) {
        const gone = yield* sql<{ token_hash: Uint8Array }>`
          DELETE FROM sessions WHERE token_hash = ${session.tokenHash} RETURNING token_hash`
        yield* cache.revoke({ hashes: [session.tokenHash] })
        yield* ended(session.userId, gone.map((row) => row.token_hash))
      }, Effect.orDie)

      // Also after the user's row is gone and their sessions with it (Deletions.ts): nothing to delete, still to evict.
      const revokeAllOf = Effect.fn("Sessions.revokeAllOf")(function*(userId: string) {
        const gone = yield* sql<{ token_hash: Uint8Array }>`DELETE FROM sessions WHERE user_id = ${userId} RETURNING token_hash`
        yield* cache.revoke({ userId })
        yield* ended(userId, gone.map((row) => row.token_hash))
        return gone.length
      }, Effect.orDie)

      const list = Effect.fn("Sessions.list")((userId: string) =>
        sql<{ token_hash: Uint8Array; client_ip: string | null; user_agent: string | null; created_at: Date | string; last_used_at: Date | string }>`
          SELECT token_hash, client_ip, user_agent, created_at, last_used_at
          FROM sessions WHERE user_id = ${userId} ORDER BY last_used_at DESC, created_at DESC`.pipe(
          Effect.map((rows) =>
            rows.map((row): StoredSession => ({
              tokenHash: Buffer.from(row.token_hash),
              clientIp: row.client_ip,
              userAgent: row.user_agent,
              createdAt: new Date(row.created_at),
              lastUsedAt: new Date(row.last_used_at)
            }))
          ),
          Effect.orDie
        ))

      const revokeMany = Effect.fn("Sessions.revokeMany")(function*(userId: string, hashes: ReadonlyArray<Buffer>) {
        if (hashes.length === 0) return
        const gone = yield* sql<{ token_hash: Uint8Array }>`
          DELETE FROM sessions WHERE user_id = ${userId} AND token_hash IN ${sql.in(hashes)} RETURNING token_hash`
        const endedHashes = gone.map((row) => row.token_hash)
        if (endedHashes.length > 0) yield* cache.revoke({ hashes: endedHashes })
        yield* ended(userId, endedHashes)
      }, Effect.orDie)

      return Sessions.of({ create, resolve, revoke, revokeAllOf, list, revokeMany })
    })
  )
}
