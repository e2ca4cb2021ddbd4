// The cluster feed across a Redis restart (its own redis-server: the shared one is never
// stopped): once its connection is back it listens again to every watched channel, including
// one watched while Redis was away, and says that events may have been missed.
import { assert, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer } from "effect"
import { Redis } from "ioredis"
import { setTimeout as sleep } from "node:timers/promises"
import { ownRedis } from "../../ops/faults/lib/services.ts"
import { guildChannel, encodeRouted } from "../../shards/Relay.ts"
import { EventFeed } from "../../src/gateway/Feed.ts"
import { AppConfig } from "../../src/platform/Config.ts"
import { RedisClient } from "../../src/platform/Redis.ts"

const PREFIX = "feed-test:"

const event = (guildId: string) =>
  encodeRouted({ guildId, dispatch: { type: "MESSAGE_CREATE", data: "{}" }, audience: { kind: "members" }, membership: undefined })

it.live("after a Redis restart the feed hears every watched channel again and reports the gap", () =>
  Effect.gen(function*() {
    const redis = yield* Effect.acquireRelease(Effect.promise(ownRedis), (r) => Effect.promise(r.remove))
    // Built in the test's scope: the feed's connection lives until the test ends.
    const services = yield* Layer.build(EventFeed.layerRedis.pipe(
      Layer.provide(RedisClient.layerUrl(redis.url)),
      Layer.provide(AppConfig.layer),
      Layer.provide(Layer.succeed(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord({ REDIS_KEY_PREFIX: PREFIX })))
    ))
    const feed = Context.get(services, EventFeed)
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
