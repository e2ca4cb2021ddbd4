import { Effect, Layer, PubSub, Schema } from "effect"
import { type Audience, audienceOf, dataForAudience, membershipOf } from "./guild/Audience.ts"
import { GuildEvents } from "./guild/Events.ts"
import { AppConfig } from "../src/platform/Config.ts"
import { RedisClient } from "../src/platform/Redis.ts"
import type { Dispatch } from "../src/model/Dispatch.ts"
import type { TraceContext } from "../src/platform/Tracing.ts"

/**
 * Guild events between processes (cluster mode). The process of the guild's
 * actor publishes each event once on the guild's Redis channel, and once more
 * on the member's channel when it adds or removes a member (that member's
 * sessions are not listening to the guild yet, or no longer). An API process
 * listens to the channels of the guilds and users its sessions need.
 */
export const guildChannel = (prefix: string, guildId: string) => `${prefix}gateway:guild:${guildId}`
export const userChannel = (prefix: string, userId: string) => `${prefix}gateway:user:${userId}`

/** A guild event as a gateway delivers it: its data as JSON already, and who may see it. */
export interface RoutedEvent {
  readonly guildId: string
  readonly dispatch: Dispatch
  readonly audience: Audience
  readonly membership: { readonly userId: string; readonly joined: boolean } | undefined
  /** The commit's place in its trace, when the publishing process exports spans. */
  readonly trace?: TraceContext | undefined
}

const Header = Schema.Struct({
  guildId: Schema.String,
  type: Schema.String,
  audience: Schema.Union([
    Schema.Struct({ kind: Schema.Literal("members") }),
    Schema.Struct({ kind: Schema.Literals(["only", "except"]), users: Schema.Array(Schema.String) })
  ]),
  membership: Schema.optional(Schema.Struct({ userId: Schema.String, joined: Schema.Boolean })),
  trace: Schema.optional(Schema.Struct({ traceId: Schema.String, spanId: Schema.String }))
})
const decodeHeader = Schema.decodeUnknownOption(Schema.fromJsonString(Header))

/** The header's JSON, a newline, then the data's JSON: the data is passed on without being parsed. */
export const encodeRouted = (event: RoutedEvent): string => {
  const { guildId, dispatch, audience, membership, trace } = event
  return `${JSON.stringify({ guildId, type: dispatch.type, audience, membership, trace })}\n${dispatch.data}`
}

export const decodeRouted = (message: string): RoutedEvent | undefined => {
  const newline = message.indexOf("\n")
  if (newline < 0) return undefined
  const header = decodeHeader(message.slice(0, newline))
  if (header._tag === "None") return undefined
  const { guildId, type, audience, membership, trace } = header.value
  return { guildId, dispatch: { type, data: message.slice(newline + 1) }, audience, membership, trace }
}

/** The events of the guilds whose actors live in this process, routed (who may see each one decided here). */
export const routedEvents = Effect.gen(function*() {
  const events = yield* GuildEvents
  const subscription = yield* PubSub.subscribe(events.pubsub)
  return Effect.map(PubSub.takeAll(subscription), (batch) =>
    batch.map(({ guildId, trace, state, ...event }): RoutedEvent => ({
      guildId,
      trace,
      dispatch: { type: event.type, data: JSON.stringify(dataForAudience(event)) },
      audience: audienceOf(state, event),
      membership: membershipOf(event)
    })))
})

/** A shard process: publishes the events of its guilds to Redis. */
export const RelayPublisher = {
  layer: Layer.effectDiscard(Effect.gen(function*() {
    const redis = yield* RedisClient
    const { redisKeyPrefix } = yield* AppConfig
    const next = yield* routedEvents
    const publish = (event: RoutedEvent) =>
      Effect.promise(() => {
        const message = encodeRouted(event)
        const pipeline = redis.pipeline().publish(guildChannel(redisKeyPrefix, event.guildId), message)
        if (event.membership !== undefined) pipeline.publish(userChannel(redisKeyPrefix, event.membership.userId), message)
        return pipeline.exec()
      })
    yield* next.pipe(
      Effect.flatMap((batch) => Effect.forEach(batch, publish, { discard: true })),
      Effect.catchCause((cause) => Effect.logWarning("gateway relay: an event was not published", cause)),
      Effect.forever,
      Effect.forkScoped
    )
  })).pipe(Layer.provide(GuildEvents.layer))
}
