import { Context, Effect, Layer } from "effect"
import type { Session } from "./Sessions.ts"
import { broadcastRevocations } from "./RevocationBroadcast.ts"

/** A cached session, and when this process last had its `last_used_at` written (epoch ms). */
export interface CachedSession {
  readonly session: Session
  touchedAt: number
}

/** What a revocation ends: sessions by token hash, or every session of a user. */
export type Revocation =
  | { readonly hashes: ReadonlyArray<Uint8Array> }
  | { readonly userId: string }

/** Sessions kept per process; past it the least recently used goes. About 300 bytes each. */
const CAPACITY = 100_000

/**
 * The resolved sessions of this process, by token, kept until revoked (the
 * bound is their number, not their age). In order of use: a Map iterates in
 * insertion order, and a hit moves its entry to the end.
 *
 * A lookup that read Postgres before a revocation and answers after it must
 * not cache what it read: every eviction advances `epoch`, and `fill` caches
 * only if it did not move meanwhile. While `usable` is off (cluster mode, the
 * subscriber is away from Redis and may miss revocations), nothing is read from
 * or written to the cache.
 */
export const makeLocalCache = (capacity = CAPACITY) => {
  const entries = new Map<string, { readonly cached: CachedSession; readonly hash: string }>()
  let epoch = 0
  let usable = true

  const get = (token: string): CachedSession | undefined => {
    if (!usable) return undefined
    const entry = entries.get(token)
    if (entry === undefined) return undefined
    entries.delete(token)
    entries.set(token, entry)
    return entry.cached
  }

  const fill = <E>(token: string, read: Effect.Effect<CachedSession | undefined, E>) =>
    Effect.suspend(() => {
      const began = epoch
      return Effect.map(read, (found) => {
        if (found === undefined || !usable || epoch !== began) return found
        if (entries.size >= capacity) {
          const oldest = entries.keys().next()
          if (oldest.done !== true) entries.delete(oldest.value)
        }
        entries.set(token, { cached: found, hash: Buffer.from(found.session.tokenHash).toString("base64url") })
        return found
      })
    })

  const evict = (revocation: Revocation) => {
    epoch++
    if ("userId" in revocation) {
      for (const [token, entry] of entries) {
        if (entry.cached.session.userId === revocation.userId) entries.delete(token)
      }
      return
    }
    const hashes = new Set(revocation.hashes.map((hash) => Buffer.from(hash).toString("base64url")))
    for (const [token, entry] of entries) {
      if (hashes.has(entry.hash)) entries.delete(token)
    }
  }

  /** Off: the cache is bypassed. On again: emptied first, since revocations may have been missed. */
  const setUsable = (on: boolean) => {
    if (on && !usable) {
      entries.clear()
      epoch++
    }
    usable = on
  }

  return { get, fill, evict, setUsable, size: () => entries.size }
}

/** Eviction, then whoever listens; a listener that throws does not keep the others from hearing. */
const revocationListeners = (evict: (revocation: Revocation) => void) => {
  const listeners: Array<(revocation: Revocation) => void> = []
  return {
    add: (listener: (revocation: Revocation) => void) => void listeners.push(listener),
    apply: (revocation: Revocation) => {
      evict(revocation)
      for (const listener of listeners) {
        try {
          listener(revocation)
        } catch (error) {
          Effect.runFork(Effect.logWarning("sessions: a revocation listener failed", error))
        }
      }
    }
  }
}

/**
 * The cache `Sessions` resolves tokens from, so that the steady state of
 * authentication does not query Postgres. Every path that ends sessions goes
 * through `Sessions`, which calls `revoke` once the rows are deleted.
 */
export class SessionCache extends Context.Service<SessionCache, {
  /** The cached session of a token; a hit becomes the most recently used. */
  readonly get: (token: string) => CachedSession | undefined
  /** Runs `read` (a lookup in Postgres) and caches what it found, unless a revocation came meanwhile. */
  readonly fill: <E>(token: string, read: Effect.Effect<CachedSession | undefined, E>) => Effect.Effect<CachedSession | undefined, E>
  /**
   * Evicts the revoked sessions here and, in cluster mode, on every API process,
   * returning once they confirmed it (RevocationBroadcast.ts).
   */
  readonly revoke: (revocation: Revocation) => Effect.Effect<void>
  /**
   * Runs `listener` for every revocation this process applies, its own and
   * those heard from the others: the gateway ends the connections of revoked sessions.
   */
  readonly onRevoked: (listener: (revocation: Revocation) => void) => void
}>()("guildhall/SessionCache") {
  /** One process (embedded mode, or a test's own services): evicting here is enough. */
  static readonly layerLocal = Layer.sync(SessionCache, () => {
    const cache = makeLocalCache()
    const listeners = revocationListeners(cache.evict)
    return SessionCache.of({
      get: cache.get,
      fill: cache.fill,
      revoke: (revocation) => Effect.sync(() => listeners.apply(revocation)),
      onRevoked: listeners.add
    })
  })

  /** Cluster mode: revocations go to every API process over Redis, and come from them. */
  static readonly layerRedis = Layer.effect(
    SessionCache,
    Effect.gen(function*() {
      const cache = makeLocalCache()
      const listeners = revocationListeners(cache.evict)
      const broadcast = yield* broadcastRevocations({
        onRevoked: listeners.apply,
        onListening: cache.setUsable
      })
      return SessionCache.of({
        get: cache.get,
        fill: cache.fill,
        revoke: Effect.fn("SessionCache.revoke")(function*(revocation: Revocation) {
          listeners.apply(revocation)
          yield* broadcast.publish(revocation)
        }),
        onRevoked: listeners.add
      })
    })
  )
}
