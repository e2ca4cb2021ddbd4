import { assert, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { clientSharding } from "../../shards/Cluster.ts"
import { User } from "../../shards/user/Protocol.ts"
import { AppConfig, settingsConfig } from "../../src/platform/Config.ts"
import { Database } from "../../src/platform/Database.ts"
import { RedisClient } from "../../src/platform/Redis.ts"
import { clusterEnvironment, clusterJson, clusterRegister, eventually } from "../support/Cluster.ts"
import { queryAt } from "../support/Postgres.ts"
import { freePort, startProcess, stopProcess, waitHealthy } from "../support/Processes.ts"

const OUTGOING = 4
const INCOMING = 3

/** This test process as an API process of the cluster at `env`: it sends to the shard processes and hosts no actor. */
const clusterClient = (env: { readonly DATABASE_URL: string; readonly REDIS_URL: string; readonly REDIS_KEY_PREFIX: string }) =>
  Layer.unwrap(Effect.gen(function*() {
    const settings = {
      ...(yield* settingsConfig),
      databaseUrl: Option.some(Redacted.make(env.DATABASE_URL)),
      redisUrl: Option.some(Redacted.make(env.REDIS_URL)),
      redisKeyPrefix: env.REDIS_KEY_PREFIX
    }
    return clientSharding(settings).pipe(
      Layer.provideMerge(Layer.mergeAll(Database.layer, RedisClient.layer)),
      Layer.provide(Layer.succeed(AppConfig, settings))
    )
  }))

const isPairs = (body: unknown): body is ReadonlyArray<{ readonly id: string; readonly type: number }> => Array.isArray(body)

it.live("a friend request whose shard process died between its two sides ends up on both sides, once", () =>
  Effect.gen(function*() {
    const { databaseUrl, env } = yield* clusterEnvironment()
    const startShard = Effect.flatMap(freePort, (port) => startProcess("shards/main.ts", { ...env, SHARD_PORT: String(port) }))
    const doomed = yield* startShard
    const apiPort = yield* freePort
    const base = `http://127.0.0.1:${apiPort}`
    const api = yield* startProcess("src/main.ts", { ...env, PORT: String(apiPort) })
    yield* waitHealthy(`${base}/_health`, api, 90)

    const alice = yield* clusterRegister(base, "alice@example.com")
    const bob = yield* clusterRegister(base, "bob@example.com")
    const [bobRow] = yield* queryAt(databaseUrl, "SELECT username, discriminator FROM users WHERE id = $1", [bob.userId])
    const bobPartial = {
      id: bob.userId,
      username: String(bobRow?.username),
      discriminator: String(bobRow?.discriminator),
      global_name: null,
      avatar: null,
      avatar_color: null,
      bot: false,
      flags: 0
    }
    const pairs = (token: string) =>
      Effect.map(clusterJson(`${base}/users/@me/relationships`, { token }), (reply) => {
        assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
        return isPairs(reply.body) ? reply.body.map((r) => [r.id, r.type]) : []
      })
    const stored = queryAt(databaseUrl, "SELECT user_id::text AS user_id, type FROM relationships ORDER BY type")
    const intents = queryAt(databaseUrl, "SELECT operation_id FROM relationship_intents")

    yield* Effect.gen(function*() {
      const users = yield* User.client
      // Alice's half, as the API process writes it, under the request's operation id.
      const ask = users(alice.userId).Write({
        operationId: "880001",
        actorId: alice.userId,
        now: Date.now(),
        command: {
          _tag: "RequestFriend",
          targetId: bob.userId,
          user: bobPartial,
          theirs: { type: null, friendsAndRequests: 0 },
          force: false,
          reachable: true
        }
      })
      const asked = yield* ask
      // The shard process dies before anyone delivers Bob's half (the sweep waits seconds before taking it).
      yield* stopProcess(doomed.child, "SIGKILL")
      assert.deepStrictEqual(yield* stored, [{ user_id: alice.userId, type: OUTGOING }])
      assert.deepStrictEqual(yield* intents, [{ operation_id: "880001:peer" }])

      // Another shard process takes the shards, and its sweep finishes the change.
      yield* startShard
      yield* eventually("the sweep delivers Bob's half", intents, (rows) => rows.length === 0, 60)
      assert.deepStrictEqual(yield* stored, [{ user_id: bob.userId, type: INCOMING }, { user_id: alice.userId, type: OUTGOING }])
      assert.deepStrictEqual(yield* pairs(alice.token), [[bob.userId, OUTGOING]])
      assert.deepStrictEqual(yield* pairs(bob.token), [[alice.userId, INCOMING]])

      // Alice's half sent again (its answer lost, say): the first answer, and nothing done twice.
      assert.deepStrictEqual(JSON.parse(yield* ask), JSON.parse(asked))
      assert.deepStrictEqual(yield* intents, [])
      assert.deepStrictEqual(yield* pairs(bob.token), [[alice.userId, INCOMING]])
      const operations = yield* queryAt(databaseUrl, "SELECT operation_id FROM actor_operations WHERE operation_id LIKE '880001%' ORDER BY operation_id")
      assert.deepStrictEqual(operations.map((r) => r.operation_id), ["880001", "880001:peer"])
    }).pipe(Effect.provide(clusterClient(env)))
  }), { timeout: 180_000 })
