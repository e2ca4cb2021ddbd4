import { randomUUID } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Runner, RunnerAddress, RunnerStorage, ShardId } from "effect/cluster"
import { Redis } from "ioredis"
import { makeRedisRunnerStorage, RedisRunnerStorage } from "../../shards/RedisRunnerStorage.ts"
import { RedisClient } from "../../src/platform/Redis.ts"

const url = "redis://127.0.0.1:6379"

const a = RunnerAddress.make("10.0.0.1", 34431)
const b = RunnerAddress.make("10.0.0.2", 34431)
const c = RunnerAddress.make("10.0.0.3", 34431)
const runner = (address: RunnerAddress.RunnerAddress) => Runner.make({ address, groups: ["default"], weight: 1 })
const shards = (...ids: ReadonlyArray<number>) => ids.map((id) => ShardId.make("default", id))
const ids = (held: ReadonlyArray<ShardId.ShardId>) => held.map((shard) => shard.id).sort((x, y) => x - y)

// A connection of its own and a fresh prefix per test; the keys go when the test ends.
const setup = (lockExpirationMillis: number) =>
  Effect.gen(function*() {
    const prefix = `test:runner-storage:${randomUUID()}:`
    const redis = yield* Effect.acquireRelease(
      Effect.sync(() => new Redis(url, { maxRetriesPerRequest: 2 })),
      (redis) =>
        Effect.promise(async () => {
          const keys = await redis.keys(`${prefix}*`)
          if (keys.length > 0) await redis.del(...keys)
          await redis.quit()
        })
    )
    const storage = yield* makeRedisRunnerStorage(redis, { prefix, lockExpirationMillis })
    return { redis, prefix, storage }
  })

describe("RedisRunnerStorage", () => {
  it.live("contending runners each get only free shards", () =>
    Effect.gen(function*() {
      const { storage } = yield* setup(10_000)
      assert.deepStrictEqual(ids(yield* storage.acquire(a, shards(1, 2, 3))), [1, 2, 3])
      assert.deepStrictEqual(ids(yield* storage.acquire(b, shards(2, 3, 4, 5))), [4, 5])
      // Re-acquiring is idempotent for own shards and still skips the other's.
      assert.deepStrictEqual(ids(yield* storage.acquire(a, shards(1, 2, 3, 4, 5))), [1, 2, 3])
      assert.deepStrictEqual(ids(yield* storage.acquire(a, [])), [])
    }))

  it.live("an expired lease can be acquired by another runner", () =>
    Effect.gen(function*() {
      const { storage } = yield* setup(300)
      assert.deepStrictEqual(ids(yield* storage.acquire(a, shards(1, 2))), [1, 2])
      assert.deepStrictEqual(ids(yield* storage.acquire(b, shards(1))), [])
      // a keeps only shard 2 alive, so shard 1 lapses while a still counts it as its own.
      for (let i = 0; i < 5; i++) {
        yield* Effect.sleep(100)
        assert.deepStrictEqual(ids(yield* storage.refresh(a, shards(2))), [2])
      }
      assert.deepStrictEqual(ids(yield* storage.acquire(b, shards(1))), [1])
      yield* storage.releaseAll(a)
      assert.deepStrictEqual(ids(yield* storage.refresh(b, shards(1))), [1])
      assert.deepStrictEqual(ids(yield* storage.acquire(b, shards(2))), [2])

      // Refresh never revives a lapsed lease, even one nobody took.
      yield* Effect.sleep(450)
      assert.deepStrictEqual(ids(yield* storage.refresh(a, shards(1, 2))), [])
    }))

  it.live("refresh keeps leases past the expiry and drops shards lost to another runner", () =>
    Effect.gen(function*() {
      const { storage } = yield* setup(300)
      assert.deepStrictEqual(ids(yield* storage.acquire(a, shards(1, 2))), [1, 2])
      for (let i = 0; i < 6; i++) {
        yield* Effect.sleep(100)
        assert.deepStrictEqual(ids(yield* storage.refresh(a, shards(1, 2))), [1, 2])
      }
      assert.deepStrictEqual(ids(yield* storage.acquire(b, shards(1, 2))), [])

      // Keep only shard 1 alive; shard 2 expires and b takes it.
      for (let i = 0; i < 5; i++) {
        yield* Effect.sleep(100)
        assert.deepStrictEqual(ids(yield* storage.refresh(a, shards(1))), [1])
      }
      assert.deepStrictEqual(ids(yield* storage.acquire(b, shards(1, 2))), [2])
      assert.deepStrictEqual(ids(yield* storage.refresh(a, shards(1, 2))), [1])
      assert.deepStrictEqual(ids(yield* storage.refresh(a, [])), [])
    }))

  it.live("release and releaseAll only touch the caller's leases", () =>
    Effect.gen(function*() {
      const { storage } = yield* setup(10_000)
      yield* storage.acquire(a, shards(1, 2))
      yield* storage.acquire(b, shards(3, 4))

      yield* storage.release(a, ShardId.make("default", 3))
      assert.deepStrictEqual(ids(yield* storage.acquire(a, shards(3))), [])
      assert.deepStrictEqual(ids(yield* storage.refresh(b, shards(3, 4))), [3, 4])

      yield* storage.release(a, ShardId.make("default", 1))
      assert.deepStrictEqual(ids(yield* storage.acquire(b, shards(1))), [1])

      yield* storage.releaseAll(a)
      assert.deepStrictEqual(ids(yield* storage.acquire(b, shards(2))), [2])
      assert.deepStrictEqual(ids(yield* storage.acquire(a, shards(1, 2, 3, 4))), [])

      yield* storage.releaseAll(b)
      assert.deepStrictEqual(ids(yield* storage.acquire(a, shards(1, 2, 3, 4))), [1, 2, 3, 4])
    }))

  it.live("getRunners hides runners whose heartbeat expired", () =>
    Effect.gen(function*() {
      const { storage } = yield* setup(300)
      const visible = Effect.map(
        storage.getRunners,
        (runners) => runners.map(([runner, healthy]) => `${runner.address.host}:${healthy}`).sort()
      )

      yield* storage.register(runner(a), true)
      yield* storage.register(runner(b), false)
      assert.deepStrictEqual(yield* visible, ["10.0.0.1:true", "10.0.0.2:false"])
      yield* storage.setRunnerHealth(b, true)
      yield* storage.setRunnerHealth(a, false)
      assert.deepStrictEqual(yield* visible, ["10.0.0.1:false", "10.0.0.2:true"])

      // Only a heartbeats (an empty refresh is a heartbeat).
      for (let i = 0; i < 5; i++) {
        yield* Effect.sleep(100)
        yield* storage.refresh(a, [])
      }
      assert.deepStrictEqual(yield* visible, ["10.0.0.1:false"])

      yield* storage.register(runner(b), true)
      assert.deepStrictEqual(yield* visible, ["10.0.0.1:false", "10.0.0.2:true"])
      yield* storage.unregister(a)
      assert.deepStrictEqual(yield* visible, ["10.0.0.2:true"])
      // Health reports about an unregistered runner do not bring it back.
      yield* storage.setRunnerHealth(a, true)
      assert.deepStrictEqual(yield* visible, ["10.0.0.2:true"])
    }))

  it.live("live runners never share a machine id", () =>
    Effect.gen(function*() {
      const { storage } = yield* setup(300)
      const idA = yield* storage.register(runner(a), true)
      const idB = yield* storage.register(runner(b), true)
      assert.notStrictEqual(idA, idB)
      assert.strictEqual(yield* storage.register(runner(a), true), idA)

      // b stops heartbeating, so c may inherit its id but never a's.
      for (let i = 0; i < 5; i++) {
        yield* Effect.sleep(100)
        yield* storage.refresh(a, [])
      }
      const idC = yield* storage.register(runner(c), true)
      assert.notStrictEqual(idC, idA)
      assert.strictEqual(idC, idB)

      // b's late heartbeat does not revive it with an id c now holds.
      yield* storage.refresh(b, [])
      const hosts = (yield* storage.getRunners).map(([runner]) => runner.address.host).sort()
      assert.deepStrictEqual(hosts, ["10.0.0.1", "10.0.0.3"])
      const idB2 = yield* storage.register(runner(b), true)
      assert.notStrictEqual(idB2, idA)
      assert.notStrictEqual(idB2, idC)
      for (const id of [idA, idB2, idC]) assert.isTrue(Number.isInteger(id) && id >= 0 && id < 1024)
    }))

  it.live("the layer builds the storage on RedisClient", () =>
    Effect.gen(function*() {
      const { redis, prefix } = yield* setup(10_000)
      const layer = RedisRunnerStorage.layer({ prefix, lockExpirationMillis: 10_000 }).pipe(
        Layer.provide(RedisClient.layerUrl(url))
      )
      const runners = yield* RunnerStorage.RunnerStorage.use((storage) =>
        Effect.andThen(storage.register(runner(a), true), storage.getRunners)
      ).pipe(Effect.provide(layer))
      assert.deepStrictEqual(runners.map(([runner, healthy]) => [runner.address.host, healthy]), [["10.0.0.1", true]])
      assert.strictEqual(yield* Effect.promise(() => redis.hget(`${prefix}runners`, "10.0.0.1:34431")), Runner.Runner.encodeSync(runner(a)))
    }))
})
