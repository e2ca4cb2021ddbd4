import { Effect, Layer } from "effect"
import { EventFeed } from "./Feed.ts"
import { Close } from "./Protocol.ts"
import { GatewayRegistry } from "./Registry.ts"

/**
 * When this process's feed may have missed events (Feed.ts, `onMissed`: its Redis connection
 * broke), no session of it can be resumed from what it kept: each stops sending at once (no
 * later event reaches its client before the news), is forgotten, and its client is told to
 * RECONNECT. Its RESUME is answered INVALID_SESSION, so the client IDENTIFYs and gets the
 * guilds as they are now, knowing that it may have missed events, never silently.
 */
export const ReconnectOnMissedEvents = Layer.effectDiscard(Effect.gen(function*() {
  const feed = yield* EventFeed
  const registry = yield* GatewayRegistry
  feed.onMissed(() => {
    const now = Date.now()
    const sessions = [...registry.all()].map((session) => {
      const link = session.connection
      if (link !== undefined) session.detach(link, now)
      return { session, link }
    })
    Effect.runFork(
      Effect.logWarning(`gateway feed: Redis was away, events may have been missed; ${sessions.length} sessions told to reconnect`).pipe(
        Effect.andThen(Effect.forEach(sessions, ({ session, link }) =>
          registry.close(session).pipe(
            Effect.andThen(
              link === undefined ? Effect.void : link.stop({ code: Close.UNKNOWN_ERROR, reason: "Events may have been missed", reconnect: true })
            ),
            Effect.timeout("5 seconds"),
            Effect.ignore
          ), { concurrency: "unbounded", discard: true }))
      )
    )
  })
}))
