import { Effect } from "effect"
import type { Revocation, SessionCache } from "../auth/SessionCache.ts"
import { Close } from "./Protocol.ts"
import type { GatewayRegistry } from "./Registry.ts"
import type { GatewaySession } from "./Session.ts"

const revoked = (registry: GatewayRegistry["Service"], revocation: Revocation): ReadonlyArray<GatewaySession> => {
  if ("userId" in revocation) return [...registry.ofUser(revocation.userId)]
  const hashes = new Set(revocation.hashes.map((hash) => Buffer.from(hash).toString("base64url")))
  // A revocation by token names no user: every session of the process is looked at (a logout is rare).
  return [...registry.all()].filter((session) => session.tokenHash !== undefined && hashes.has(session.tokenHash))
}

/**
 * Ends the gateway sessions of revoked tokens on this process, as soon as it
 * hears of the revocation (SessionCache.onRevoked: its own, or another API
 * process's over Redis): a logged-out, banned or deleted user's connections
 * close with 4004, like a token refused at IDENTIFY, and cannot be resumed.
 */
export const closeRevokedSessions = (registry: GatewayRegistry["Service"], cache: SessionCache["Service"]) =>
  cache.onRevoked((revocation) => {
    const sessions = revoked(registry, revocation)
    if (sessions.length === 0) return
    Effect.runFork(Effect.forEach(sessions, (session) => {
      const link = session.connection
      return registry.close(session).pipe(
        Effect.andThen(link === undefined ? Effect.void : link.stop({ code: Close.AUTHENTICATION_FAILED, reason: "Session ended" }))
      )
    }, { discard: true, concurrency: "unbounded" }))
  })
