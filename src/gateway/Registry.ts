import { Context, Effect, Layer, Schedule } from "effect"
import { LiveActors } from "../../shards/LiveActors.ts"
import { EventFeed } from "./Feed.ts"
import { counterOnScrape, gaugeOnScrape } from "../platform/Metrics.ts"
import { RESUME_WINDOW_MILLIS } from "./Protocol.ts"
import { dispatchesSoFar, type GatewaySession, type Link } from "./Session.ts"

const EMPTY: ReadonlySet<GatewaySession> = new Set()

/** Adds `session` under `key`; true when it is the first there. */
const addTo = <K>(index: Map<K, Set<GatewaySession>>, key: K, session: GatewaySession): boolean => {
  const set = index.get(key)
  if (set !== undefined) {
    set.add(session)
    return false
  }
  index.set(key, new Set([session]))
  return true
}

/** Removes `session` from under `key`; true when it was the last there. */
const removeFrom = <K>(index: Map<K, Set<GatewaySession>>, key: K, session: GatewaySession): boolean => {
  const set = index.get(key)
  if (set === undefined || !set.delete(session)) return false
  if (set.size > 0) return false
  index.delete(key)
  return true
}

/**
 * The gateway sessions of this process, by id, by user and by guild, and its
 * open connections. The
 * first session of a guild or user makes the feed listen to it, the last one
 * out stops it. A dropped session stays for RESUME_WINDOW_MILLIS.
 */
export class GatewayRegistry extends Context.Service<GatewayRegistry, {
  /** Registers a session; it hears from its user's channel at once, from its guilds as it joins them. */
  readonly open: (session: GatewaySession) => Effect.Effect<void>
  /** Forgets a session and everything it listened to. */
  readonly close: (session: GatewaySession) => Effect.Effect<void>
  readonly join: (session: GatewaySession, guildId: string) => Effect.Effect<void>
  readonly leave: (session: GatewaySession, guildId: string) => Effect.Effect<void>
  readonly find: (sessionId: string) => GatewaySession | undefined
  readonly inGuild: (guildId: string) => ReadonlySet<GatewaySession>
  readonly ofUser: (userId: string) => ReadonlySet<GatewaySession>
  /** Every session of this process (Revocations.ts looks for a revoked token's). */
  readonly all: () => Iterable<GatewaySession>
  /** The open connections, identified or not: what a shutdown tells to reconnect. */
  readonly connections: Set<Link>
  /** Runs `listener` for each session closed from now on, before it leaves its guilds. */
  readonly onClose: (listener: (session: GatewaySession) => Effect.Effect<void>) => void
}>()("guildhall/GatewayRegistry") {
  static readonly layer = Layer.effect(
    GatewayRegistry,
    Effect.gen(function*() {
      const feed = yield* EventFeed
      const live = yield* LiveActors
      const sessions = new Map<string, GatewaySession>()
      const byUser = new Map<string, Set<GatewaySession>>()
      const byGuild = new Map<string, Set<GatewaySession>>()
      const closeListeners: Array<(session: GatewaySession) => Effect.Effect<void>> = []

      const join = Effect.fn("GatewayRegistry.join")((session: GatewaySession, guildId: string) => {
        session.guilds.add(guildId)
        return addTo(byGuild, guildId, session) ? feed.watchGuild(guildId) : Effect.void
      })
      // Unnamed: a closing session leaves each of its guilds within the span of `close`.
      const leaveGuild = (session: GatewaySession, guildId: string) =>
        Effect.suspend(() => {
          session.guilds.delete(guildId)
          return removeFrom(byGuild, guildId, session) ? feed.unwatchGuild(guildId) : Effect.void
        })
      const open = Effect.fn("GatewayRegistry.open")((session: GatewaySession) => {
        sessions.set(session.id, session)
        live.sessions.set(session.id, session)
        return addTo(byUser, session.userId, session) ? feed.watchUser(session.userId) : Effect.void
      })
      const close = Effect.fn("GatewayRegistry.close")((session: GatewaySession) => {
        if (sessions.get(session.id) !== session) return Effect.void
        sessions.delete(session.id)
        live.sessions.delete(session.id)
        const lastOfUser = removeFrom(byUser, session.userId, session)
        return Effect.forEach(closeListeners, (listener) => listener(session), { discard: true }).pipe(
          Effect.andThen(Effect.forEach([...session.guilds], (guildId) => leaveGuild(session, guildId), { discard: true })),
          Effect.andThen(lastOfUser ? feed.unwatchUser(session.userId) : Effect.void)
        )
      })

      // Sessions whose client did not come back in time.
      const expire = Effect.suspend(() => {
        const cutoff = Date.now() - RESUME_WINDOW_MILLIS
        const stale = [...sessions.values()].filter((s) => s.detachedAt !== undefined && s.detachedAt < cutoff)
        return Effect.forEach(stale, close, { discard: true })
      })
      yield* expire.pipe(Effect.repeat(Schedule.spaced("5 seconds")), Effect.forkScoped)

      const connections = new Set<Link>()
      yield* gaugeOnScrape("guildhall_gateway_sessions", "Gateway sessions of this process (resumable ones included)", {}, () =>
        sessions.size)
      yield* gaugeOnScrape("guildhall_gateway_connections", "Open gateway connections of this process", {}, () => connections.size)
      yield* counterOnScrape("guildhall_gateway_dispatches_total", "Dispatches sent to (or kept for) this process's sessions", dispatchesSoFar)

      return GatewayRegistry.of({
        open,
        close,
        join,
        leave: Effect.fn("GatewayRegistry.leave")(leaveGuild),
        find: (id) => sessions.get(id),
        inGuild: (guildId) => byGuild.get(guildId) ?? EMPTY,
        ofUser: (userId) => byUser.get(userId) ?? EMPTY,
        all: () => sessions.values(),
        connections,
        onClose: (listener) => void closeListeners.push(listener)
      })
    })
  )
}
