import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { Redis } from "ioredis"
import { createHash } from "node:crypto"
import { field } from "../support/Api.ts"
import { clusterEnvironment, clusterJson, clusterRegister, eventually, shardAndTwoApis } from "../support/Cluster.ts"
import { queryAt } from "../support/Postgres.ts"

const PASSWORD = "correct horse battery"

/** A connection of the test's own to the cluster's Redis. */
const testRedis = Effect.acquireRelease(
  Effect.sync(() => new Redis("redis://127.0.0.1:6379")),
  (redis) => Effect.promise(() => redis.quit().catch(() => "closed"))
)

/** Drops the revocation subscribers of this cluster's processes (by their connection name), as a network blip would. */
const dropSubscribers = (redis: Redis, prefix: string) =>
  Effect.promise(async () => {
    const listed = String(await redis.call("CLIENT", "LIST"))
    const ids = listed.split("\n").flatMap((line) => {
      const id = /\bid=(\d+)/.exec(line)?.[1]
      return id !== undefined && line.includes(` name=${prefix}sessions:revoked:subscriber `) ? [id] : []
    })
    for (const id of ids) await redis.call("CLIENT", "KILL", "ID", id)
    return ids.length
  })

/** How many connections listen for revocations of this cluster. */
const subscribers = (redis: Redis, prefix: string) =>
  Effect.promise(async () => {
    const counts = await redis.call("PUBSUB", "NUMSUB", `${prefix}sessions:revoked`)
    return Array.isArray(counts) ? Number(counts[1]) : 0
  })

it.live("in cluster mode, a session ended through API process A is refused by API process B at once", () =>
  Effect.gen(function*() {
    const { env, databaseUrl } = yield* clusterEnvironment()
    const prefix = env.REDIS_KEY_PREFIX
    const { first: a, second: b } = yield* shardAndTwoApis(env)
    const me = (base: string, token: string) => Effect.map(clusterJson(`${base}/users/@me`, { token }), (reply) => reply.status)
    /** Used on both processes, so that each has it in its cache. */
    const usedOnBoth = (token: string) =>
      Effect.gen(function*() {
        assert.strictEqual(yield* me(a.base, token), 200)
        assert.strictEqual(yield* me(b.base, token), 200)
      })
    const login = (base: string, password = PASSWORD) =>
      Effect.map(
        clusterJson(`${base}/auth/login`, { method: "POST", body: { email: "alice@example.com", password } }),
        (reply) => field(reply.body, "token")
      )

    // Logout: B is asked right after A answered, no waiting.
    const { token: first } = yield* clusterRegister(a.base, "alice@example.com")
    yield* usedOnBoth(first)
    assert.strictEqual((yield* clusterJson(`${a.base}/auth/logout`, { method: "POST", token: first })).status, 204)
    assert.strictEqual(yield* me(b.base, first), 401)
    assert.strictEqual(yield* me(a.base, first), 401)

    // Ending another session from the session list (by its hash), through B.
    const kept = yield* login(a.base)
    const listed = yield* login(b.base)
    yield* usedOnBoth(kept)
    yield* usedOnBoth(listed)
    const ended = yield* clusterJson(`${b.base}/auth/sessions/logout`, {
      method: "POST",
      token: kept,
      body: { session_id_hashes: [createHash("sha256").update(listed).digest("base64url")], password: PASSWORD }
    })
    assert.strictEqual(ended.status, 204, JSON.stringify(ended.body))
    assert.strictEqual(yield* me(a.base, listed), 401)
    assert.strictEqual(yield* me(b.base, kept), 200)

    // A password change ends every other session.
    const other = yield* login(b.base)
    yield* usedOnBoth(other)
    const changed = yield* clusterJson(`${a.base}/users/@me`, {
      method: "PATCH",
      token: kept,
      body: { password: PASSWORD, new_password: "a much better passphrase" }
    })
    assert.strictEqual(changed.status, 200, JSON.stringify(changed.body))
    assert.strictEqual(yield* me(b.base, other), 401)
    assert.strictEqual(yield* me(a.base, other), 401)
    assert.strictEqual(yield* me(b.base, kept), 200)

    // Disabling the account ends all of the user's sessions: the one it was asked with too.
    const last = yield* login(a.base, "a much better passphrase")
    yield* usedOnBoth(last)
    const disabled = yield* clusterJson(`${b.base}/users/@me/disable`, {
      method: "POST",
      token: kept,
      body: { password: "a much better passphrase" }
    })
    assert.strictEqual(disabled.status, 204, JSON.stringify(disabled.body))
    assert.strictEqual(yield* me(a.base, kept), 401)
    assert.strictEqual(yield* me(a.base, last), 401)
    assert.strictEqual(yield* me(b.base, last), 401)

    // The subscribers lose Redis: a revocation they may have missed meanwhile (here, rows
    // deleted behind the servers' backs) is seen, since the cache is off until they are
    // back, and emptied then.
    const redis = yield* testRedis
    const bob = yield* clusterRegister(a.base, "bob@example.com")
    yield* usedOnBoth(bob.token)
    assert.strictEqual(yield* dropSubscribers(redis, prefix), 2)
    yield* queryAt(databaseUrl, "DELETE FROM sessions WHERE user_id = $1", [bob.userId])
    yield* eventually("B refusing a session deleted while it was away", me(b.base, bob.token), (status) => status === 401, 10)
    assert.strictEqual(yield* me(a.base, bob.token), 401)
    // Back, they hear revocations again.
    yield* eventually("both subscribed again", subscribers(redis, prefix), (count) => count === 2, 10)
    const again = field(
      (yield* clusterJson(`${b.base}/auth/login`, { method: "POST", body: { email: "bob@example.com", password: PASSWORD } })).body,
      "token"
    )
    yield* usedOnBoth(again)
    assert.strictEqual((yield* clusterJson(`${a.base}/auth/logout`, { method: "POST", token: again })).status, 204)
    assert.strictEqual(yield* me(b.base, again), 401)

    // Each revocation was confirmed by both processes, rather than answered after waiting in vain.
    for (const api of [a, b]) assert.notMatch(api.started.output(), /sessions: .*revocation/)
  }), { timeout: 180_000 })
