import { Effect, Layer } from "effect"
import { TemporaryMembersOnDisconnect } from "../invites/TemporaryMembers.ts"
import { FanoutLive } from "./Fanout.ts"
import { EventFeed } from "./Feed.ts"
import { Presences } from "./Presence.ts"
import { PresenceRoutes } from "./PresenceRoutes.ts"
import { ReconnectOnMissedEvents } from "./MissedEvents.ts"
import { GatewayRegistry } from "./Registry.ts"
import { UserEvents } from "../../shards/UserEvents.ts"
import { UserFanoutLive } from "./UserFanout.ts"
import { VoiceRoutes } from "./VoiceRoutes.ts"
import { VoiceStates } from "./VoiceStates.ts"

/** The gateway of the embedded process: it hears the events of its own actors. */
export const gatewayLocal = Layer.mergeAll(FanoutLive, UserFanoutLive, TemporaryMembersOnDisconnect).pipe(
  Layer.provideMerge(VoiceStates.layer.pipe(Layer.provide(VoiceRoutes.layerLocal))),
  Layer.provideMerge(Presences.layer.pipe(Layer.provide([PresenceRoutes.layerLocal, UserEvents.layerLocal]))),
  Layer.provideMerge(GatewayRegistry.layer),
  Layer.provideMerge(EventFeed.layerLocal)
)

/**
 * The gateway of an API process in cluster mode: it hears the events of its sessions' guilds over Redis,
 * and tells presence and voice changes there (PresenceRoutes.ts, VoiceRoutes.ts).
 */
export const gatewayCluster = Layer.mergeAll(FanoutLive, UserFanoutLive, TemporaryMembersOnDisconnect, ReconnectOnMissedEvents).pipe(
  Layer.provideMerge(VoiceStates.layer.pipe(Layer.provide(VoiceRoutes.layerRedis))),
  Layer.provideMerge(Presences.layer.pipe(Layer.provide([PresenceRoutes.layerRedis, UserEvents.layerRedis]))),
  Layer.provideMerge(GatewayRegistry.layer),
  Layer.provideMerge(EventFeed.layerRedis)
)

/** Close code with the RECONNECT of a shutdown: the client comes back (to another process, or to this one restarted). */
const SERVICE_RESTART = 1012

/**
 * At shutdown, before the HTTP server waits for its connections to end:
 * every connection is sent RECONNECT and closed, so clients move on at once.
 */
export const ReconnectOnShutdown = Layer.effectDiscard(Effect.gen(function*() {
  const registry = yield* GatewayRegistry
  yield* Effect.addFinalizer(() =>
    Effect.forEach(
      [...registry.connections],
      (link) =>
        link.stop({ code: SERVICE_RESTART, reason: "Server restarting", reconnect: true }).pipe(
          Effect.timeout("2 seconds"),
          Effect.ignore
        ),
      { concurrency: "unbounded", discard: true }
    )
  )
}))
