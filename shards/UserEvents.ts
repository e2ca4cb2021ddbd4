import { Context, Effect, Layer, PubSub } from "effect"
import { AppConfig } from "../src/platform/Config.ts"
import { RedisClient } from "../src/platform/Redis.ts"
import { userChannel } from "./Relay.ts"
import type { Dispatch } from "../src/model/Dispatch.ts"

/** A dispatch for every session of one user, whatever guilds they are in (DM channels, calls). */
export interface UserDispatch {
  readonly userId: string
  readonly dispatch: Dispatch
}

/**
 * On a user's Redis channel (Relay.ts) these travel next to guild events: the
 * marker line cannot be a guild event's JSON header, so neither decoder takes
 * the other's messages. Then the event name, a newline, and the data's JSON.
 */
const MARKER = "user"

export const encodeUserDispatch = ({ type, data }: Dispatch): string => `${MARKER}\n${type}\n${data}`

export const decodeUserDispatch = (userId: string, message: string): UserDispatch | undefined => {
  if (!message.startsWith(`${MARKER}\n`)) return undefined
  const rest = message.slice(MARKER.length + 1)
  const newline = rest.indexOf("\n")
  return newline < 0 ? undefined : { userId, dispatch: { type: rest.slice(0, newline), data: rest.slice(newline + 1) } }
}

/**
 * Publishes dispatches addressed to users rather than to a guild's audience.
 * Called after the change they announce is committed. In one process the
 * gateway takes them from `pubsub`; in cluster mode they go to each user's
 * Redis channel, which every API process holding a session of theirs listens to.
 */
export class UserEvents extends Context.Service<UserEvents, {
  readonly publish: (userIds: Iterable<string>, dispatch: Dispatch) => Effect.Effect<void>
  /** The local dispatches (embedded mode); empty in cluster mode. */
  readonly pubsub: PubSub.PubSub<UserDispatch>
}>()("guildhall/UserEvents") {
  static readonly layerLocal = Layer.effect(
    UserEvents,
    Effect.map(PubSub.unbounded<UserDispatch>(), (pubsub) =>
      UserEvents.of({
        pubsub,
        publish: Effect.fn("UserEvents.publish")((userIds, dispatch) =>
          Effect.asVoid(PubSub.publishAll(pubsub, [...new Set(userIds)].map((userId) => ({ userId, dispatch })))))
      }))
  )

  static readonly layerRedis = Layer.effect(
    UserEvents,
    Effect.gen(function*() {
      const redis = yield* RedisClient
      const { redisKeyPrefix } = yield* AppConfig
      const pubsub = yield* PubSub.unbounded<UserDispatch>()
      return UserEvents.of({
        pubsub,
        publish: Effect.fn("UserEvents.publish")((userIds, dispatch) =>
          Effect.promise(() => {
            const message = encodeUserDispatch(dispatch)
            const pipeline = redis.pipeline()
            for (const userId of new Set(userIds)) pipeline.publish(userChannel(redisKeyPrefix, userId), message)
            return pipeline.exec()
          }).pipe(
            Effect.catchCause((cause) => Effect.logWarning("gateway: a user event was not published", cause)),
            Effect.asVoid
          ))
      })
    })
  )
}
