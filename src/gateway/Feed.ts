import { Context, Effect, Layer, PubSub, Queue } from "effect"
import { Redis } from "ioredis"
import { GuildEvents } from "../../shards/guild/Events.ts"
import { AppConfig } from "../platform/Config.ts"
import { RedisClient } from "../platform/Redis.ts"
import { decodeRouted, guildChannel, routedEvents, type RoutedEvent, userChannel } from "../../shards/Relay.ts"
import { decodeUserDispatch, type UserDispatch, UserEvents } from "../../shards/UserEvents.ts"

/**
 * A routed event, and whom it is for: the sessions of its guild, and/or the
 * sessions of the member it adds or removes (see Relay.ts).
 */
export interface FeedEvent {
  readonly event: RoutedEvent
  readonly forGuild: boolean
  readonly forMember: boolean
}

/**
 * Where this process's gateway hears of guild events. The registry says which
 * guilds and users its sessions need (first session in, last one out); in
 * embedded mode every event is here anyway, in cluster mode that is what this
 * process listens to on Redis.
 */
export class EventFeed extends Context.Service<EventFeed, {
  readonly watchGuild: (guildId: string) => Effect.Effect<void>
  readonly unwatchGuild: (guildId: string) => Effect.Effect<void>
  readonly watchUser: (userId: string) => Effect.Effect<void>
  readonly unwatchUser: (userId: string) => Effect.Effect<void>
  /** The next events, waiting for one. */
  readonly next: Effect.Effect<ReadonlyArray<FeedEvent>>
  /** The next dispatches addressed to users (UserEvents.ts), waiting for one. */
  readonly nextForUsers: Effect.Effect<ReadonlyArray<UserDispatch>>
  /**
   * Runs `listener` each time the feed may have missed events (its connection to Redis broke:
   * what was published meanwhile is gone), once it listens again to everything watched and
   * before it hands out anything heard since.
   */
  readonly onMissed: (listener: () => void) => void
}>()("guildhall/EventFeed") {
  /** The actors of this process publish every event there is. */
  static readonly layerLocal = Layer.effect(
    EventFeed,
    Effect.gen(function*() {
      const routed = yield* routedEvents
      const forUsers = yield* PubSub.subscribe((yield* UserEvents).pubsub)
      return EventFeed.of({
        watchGuild: () => Effect.void,
        unwatchGuild: () => Effect.void,
        watchUser: () => Effect.void,
        unwatchUser: () => Effect.void,
        next: Effect.map(routed, (batch) => batch.map((event) => ({ event, forGuild: true, forMember: true }))),
        nextForUsers: PubSub.takeAll(forUsers),
        onMissed: () => undefined
      })
    })
  ).pipe(Layer.provide([GuildEvents.layer, UserEvents.layerLocal]))

  /** One subscriber connection per process; one Redis message per event, whatever the number of sessions. */
  static readonly layerRedis = Layer.effect(
    EventFeed,
    Effect.gen(function*() {
      const redis = yield* RedisClient
      const { redisKeyPrefix } = yield* AppConfig
      // Resubscribed by hand below, so that what was missed is known only once every channel is heard again.
      // Connected here, not by the first SUBSCRIBE: see `watch`.
      const subscriber = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const connection = new Redis({ ...redis.options, lazyConnect: true, autoResubscribe: false })
            await connection.connect()
            return connection
          },
          catch: (cause) => new Error(`gateway feed: cannot reach Redis: ${String(cause)}`)
        }).pipe(Effect.orDie),
        (s) => Effect.promise(() => s.quit().catch(() => "closed"))
      )
      const arrived = yield* Queue.unbounded<FeedEvent>()
      const arrivedForUsers = yield* Queue.unbounded<UserDispatch>()
      const guildPrefix = guildChannel(redisKeyPrefix, "")
      const userPrefix = userChannel(redisKeyPrefix, "")
      subscriber.on("message", (channel: string, message: string) => {
        const forUser = channel.startsWith(userPrefix) ? decodeUserDispatch(channel.slice(userPrefix.length), message) : undefined
        if (forUser !== undefined) return void Queue.offerUnsafe(arrivedForUsers, forUser)
        const event = decodeRouted(message)
        if (event === undefined) return
        const forGuild = channel.startsWith(guildPrefix)
        Queue.offerUnsafe(arrived, { event, forGuild, forMember: !forGuild })
      })
      const call = (f: () => Promise<unknown>) =>
        Effect.tryPromise(f).pipe(
          Effect.catch((error) => Effect.logWarning("gateway feed: Redis did not answer", error)),
          Effect.asVoid
        )
      // What the sessions need, whether or not Redis heard of it: a subscribe sent while it was away is lost.
      // Nothing is sent until the connection is ready: ioredis checks a new connection with INFO after a
      // few round trips, and a SUBSCRIBE written meanwhile puts the connection in subscriber mode, the
      // check fails and the connection is made again (which reads as Redis having been away: every
      // session was told to reconnect, under load, right after a process started). The `ready`
      // handler subscribes to everything watched.
      const watched = new Set<string>()
      const watch = (channel: string) => {
        watched.add(channel)
        return subscriber.status === "ready" ? call(() => subscriber.subscribe(channel)) : Effect.void
      }
      const unwatch = (channel: string) => {
        watched.delete(channel)
        return subscriber.status === "ready" ? call(() => subscriber.unsubscribe(channel)) : Effect.void
      }
      // Pub/sub keeps nothing for a subscriber away: once the connection broke, events may be gone. Once it
      // is back every channel is listened to again, and only then are the sessions told, so that what they
      // are sent from then on is complete.
      const missedListeners: Array<() => void> = []
      let broken = false
      subscriber.on("close", () => {
        broken = true
      })
      subscriber.on("ready", () => {
        if (!broken) return
        broken = false
        const channels = [...watched]
        void (channels.length === 0 ? Promise.resolve(0) : subscriber.subscribe(...channels)).then(
          // Synchronously: the fan-out's fibers have not run since, so nothing later reached a session first.
          () => missedListeners.forEach((listener) => listener()),
          // The connection broke again before it was done: the next `ready` tries again.
          () => undefined
        )
      })
      return EventFeed.of({
        watchGuild: Effect.fn("EventFeed.watchGuild")((id) => watch(guildChannel(redisKeyPrefix, id))),
        unwatchGuild: Effect.fn("EventFeed.unwatchGuild")((id) => unwatch(guildChannel(redisKeyPrefix, id))),
        watchUser: Effect.fn("EventFeed.watchUser")((id) => watch(userChannel(redisKeyPrefix, id))),
        unwatchUser: Effect.fn("EventFeed.unwatchUser")((id) => unwatch(userChannel(redisKeyPrefix, id))),
        // No span on the takes: the fan-out's loop waits on them for every batch of events.
        next: Queue.takeAll(arrived),
        nextForUsers: Queue.takeAll(arrivedForUsers),
        onMissed: (listener) => void missedListeners.push(listener)
      })
    })
  )
}
