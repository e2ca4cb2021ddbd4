// The cluster feed across a Redis restart (its own redis-server: the shared one is never
// stopped): once its connection is back it listens again to every watched channel, including
// one watched while Redis was away, and says that events may have been missed.
import { assert, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer } from "effect"
import { Redis } from "ioredis"
import { setTimeout as sleep } from "node:timers/promises"
import { tcpProxy } from "../../ops/faults/lib/proxy.ts"
import { ownRedis } from "../../ops/faults/lib/services.ts"
import { guildChannel, encodeRouted } from "../../shards/Relay.ts"
import { EventFeed } from "../../src/gateway/Feed.ts"
import { AppConfig } from "../../src/platform/Config.ts"
import { RedisClient } from "../../src/platform/Redis.ts"

const PREFIX = "feed-test:"

/** The cluster feed on the Redis at `url`, built in the test's scope: its connection lives until the test ends. */
const feedOn = (url: string) =>
  Effect.map(
    Layer.build(EventFeed.layerRedis.pipe(
      Layer.provide(RedisClient.layerUrl(url)),
      Layer.provide(AppConfig.layer),
      Layer.provide(Layer.succeed(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord({ REDIS_KEY_PREFIX: PREFIX })))
    )),
    (services) => Context.get(services, EventFeed)
  )

const event = (guildId: string) =>
  encodeRouted({ guildId, dispatch: { type: "MESSAGE_CREATE", data: "{}" }, audience: { kind: "members" }, membership: undefined })

it.live("after a Redis restart the feed hears every watched channel again and reports the gap", () =>
  Effect.gen(function*() {
    const redis = yield* Effect.acquireRelease(Effect.promise(ownRedis), (r) => Effect.promise(r.remove))
    const feed = yield* feedOn(redis.url)
    let missed = 0
    feed.onMissed(() => missed++)
    yield* feed.watchGuild("1")
    yield* Effect.promise(() => redis.stop({ keepData: false }))
    // Watched while Redis is away: the subscribe itself fails, the feed still owes it.
    yield* feed.watchGuild("2")
    yield* Effect.promise(() => redis.start())
    yield* Effect.promise(async () => {
      const deadline = Date.now() + 15_000
      while (missed === 0 && Date.now() < deadline) await sleep(50)
    })
    assert.strictEqual(missed, 1)
    const publisher = yield* Effect.acquireRelease(Effect.sync(() => new Redis(redis.url)), (p) => Effect.promise(() => p.quit()))
    yield* Effect.promise(() => publisher.publish(guildChannel(PREFIX, "1"), event("1")))
    yield* Effect.promise(() => publisher.publish(guildChannel(PREFIX, "2"), event("2")))
    const heard: Array<string> = []
    while (heard.length < 2) heard.push(...(yield* feed.next).map((e) => e.event.guildId))
    assert.deepStrictEqual(heard, ["1", "2"])
  }).pipe(Effect.scoped), { timeout: 60_000 })

it.live("a watch made while the feed's new connection is being checked breaks nothing: one gap, every channel heard", () =>
  Effect.gen(function*() {
    const redis = yield* Effect.acquireRelease(Effect.promise(ownRedis), (r) => Effect.promise(r.remove))
    // Between the feed and Redis, a proxy that can hold a new connection between its TCP connect
    // and ioredis's check of it (the CLIENT commands, then INFO), which under load can take long.
    const proxy = yield* Effect.acquireRelease(Effect.promise(() => tcpProxy(redisPort(redis.url))), (p) => Effect.promise(p.close))
    const feed = yield* feedOn(`redis://127.0.0.1:${proxy.port}`)
    let missed = 0
    feed.onMissed(() => missed++)
    yield* feed.watchGuild("1")
    proxy.setMode("drop")
    yield* Effect.sleep("300 millis")
    proxy.setMode("stall")
    // ioredis tries again within a few hundred milliseconds: by then its new connection waits on the check.
    yield* Effect.sleep("1 second")
    // A session identifies now. Written at once, its SUBSCRIBE would put the connection in subscriber
    // mode before the check's INFO, fail the check, and make the connection again: a second gap.
    const watchedInTime = yield* Effect.timeoutOption(feed.watchGuild("2"), "5 seconds")
    assert.isTrue(watchedInTime._tag === "Some", "the watch waited on the connection being checked")
    proxy.setMode("pass")
    yield* Effect.promise(async () => {
      const deadline = Date.now() + 15_000
      while (missed === 0 && Date.now() < deadline) await sleep(50)
      await sleep(1_500)
    })
    assert.strictEqual(missed, 1)
    const publisher = yield* Effect.acquireRelease(Effect.sync(() => new Redis(redis.url)), (p) => Effect.promise(() => p.quit()))
    yield* Effect.promise(() => publisher.publish(guildChannel(PREFIX, "1"), event("1")))
    yield* Effect.promise(() => publisher.publish(guildChannel(PREFIX, "2"), event("2")))
    const heard: Array<string> = []
    const deadline = Date.now() + 10_000
    while (heard.length < 2 && Date.now() < deadline) {
      const batch = yield* Effect.timeoutOption(feed.next, "1 second")
      if (batch._tag === "Some") heard.push(...batch.value.map((e) => e.event.guildId))
    }
    assert.deepStrictEqual(heard, ["1", "2"])
  }).pipe(Effect.scoped), { timeout: 60_000 })

const redisPort = (url: string) => Number(new URL(url).port)
