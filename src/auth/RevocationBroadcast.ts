import { Deferred, Effect, Schema } from "effect"
import { Redis } from "ioredis"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../platform/Config.ts"
import { RedisClient } from "../platform/Redis.ts"
import type { Revocation } from "./SessionCache.ts"

/** Where every API process of a cluster hears of ended sessions. */
export const revokedChannel = (prefix: string) => `${prefix}sessions:revoked`

/** How long a revocation waits for the other processes to confirm it, before answering anyway. */
const CONFIRMED_WITHIN = "1 second"

/** A revocation on the wire: token hashes in base64url, or a user; where to confirm it. */
const Wire = Schema.Union([
  Schema.Struct({ id: Schema.String, replyTo: Schema.String, hashes: Schema.Array(Schema.String) }),
  Schema.Struct({ id: Schema.String, replyTo: Schema.String, userId: Schema.String })
])
const decodeWire = Schema.decodeUnknownOption(Schema.fromJsonString(Wire))

const encode = (id: string, replyTo: string, revocation: Revocation): string =>
  JSON.stringify(
    "userId" in revocation
      ? { id, replyTo, userId: revocation.userId }
      : { id, replyTo, hashes: revocation.hashes.map((hash) => Buffer.from(hash).toString("base64url")) }
  )

const decode = (message: string): { readonly id: string; readonly replyTo: string; readonly revocation: Revocation } | undefined => {
  const wire = decodeWire(message)
  if (wire._tag === "None") return undefined
  const { id, replyTo } = wire.value
  return "userId" in wire.value
    ? { id, replyTo, revocation: { userId: wire.value.userId } }
    : { id, replyTo, revocation: { hashes: wire.value.hashes.map((hash) => Buffer.from(hash, "base64url")) } }
}

/**
 * Revocations between the API processes of a cluster, on one subscriber
 * connection per process (as the gateway's EventFeed). Each process applies
 * what it hears (`onRevoked`) and confirms it on the publisher's own reply
 * channel; `publish` returns once as many processes confirmed as PUBLISH says
 * received it, so a logout answers after every process refuses the token.
 *
 * What remains: a request another process had already authenticated from its
 * cache when the revocation arrived goes on; a process whose connection died
 * without Redis noticing yet is counted and not heard from, so the revocation
 * answers after `CONFIRMED_WITHIN`, and that process may serve the token until
 * it notices. While the subscriber is away from Redis it may miss revocations,
 * so the cache is off (`onListening(false)`) until it has subscribed again,
 * and emptied then.
 */
export const broadcastRevocations = (handlers: {
  readonly onRevoked: (revocation: Revocation) => void
  readonly onListening: (listening: boolean) => void
}) =>
  Effect.gen(function*() {
    const redis = yield* RedisClient
    const { redisKeyPrefix } = yield* AppConfig
    const channel = revokedChannel(redisKeyPrefix)
    const replyTo = `${channel}:confirmed:${randomUUID()}`
    const waiting = new Map<string, { confirmed: number; receivers: number; readonly done: Deferred.Deferred<void> }>()

    // autoResubscribe off: after a reconnection the cache is turned on again only once the subscription is back.
    // Named, so that an operator (or a test) can tell it in CLIENT LIST.
    const subscriber = yield* Effect.acquireRelease(
      Effect.sync(() =>
        new Redis({ ...redis.options, lazyConnect: true, autoResubscribe: false, connectionName: `${channel}:subscriber` })
      ),
      (s) => Effect.promise(() => s.quit().catch(() => "closed"))
    )
    const settle = (id: string) => {
      const entry = waiting.get(id)
      if (entry !== undefined && entry.confirmed >= entry.receivers) Deferred.doneUnsafe(entry.done, Effect.void)
    }
    subscriber.on("message", (from: string, message: string) => {
      if (from === replyTo) {
        const entry = waiting.get(message)
        if (entry !== undefined) entry.confirmed++
        return settle(message)
      }
      const heard = decode(message)
      if (heard === undefined) return
      handlers.onRevoked(heard.revocation)
      redis.publish(heard.replyTo, heard.id).catch(() => 0)
    })
    const listen = () =>
      subscriber.subscribe(channel, replyTo).then(() => handlers.onListening(true), () => undefined)
    subscriber.on("close", () => handlers.onListening(false))
    yield* Effect.promise(async () => {
      await subscriber.connect()
      await listen()
    })
    subscriber.on("ready", () => void listen())

    const publish = (revocation: Revocation) =>
      Effect.suspend(() => {
        const id = randomUUID()
        const entry = { confirmed: 0, receivers: Number.POSITIVE_INFINITY, done: Deferred.makeUnsafe<void>() }
        waiting.set(id, entry)
        return Effect.tryPromise(() => redis.publish(channel, encode(id, replyTo, revocation))).pipe(
          Effect.flatMap((receivers) => {
            entry.receivers = receivers
            settle(id)
            return Deferred.await(entry.done).pipe(
              Effect.timeoutOrElse({
                duration: CONFIRMED_WITHIN,
                orElse: () => Effect.logWarning(`sessions: ${entry.confirmed} of ${receivers} API processes confirmed a revocation`)
              })
            )
          }),
          Effect.catch((error) => Effect.logWarning("sessions: a revocation was not published", error)),
          Effect.ensuring(Effect.sync(() => waiting.delete(id)))
        )
      })

    return { publish }
  })
