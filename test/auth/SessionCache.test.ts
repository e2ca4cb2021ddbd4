import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { type CachedSession, makeLocalCache } from "../../src/auth/SessionCache.ts"
import { UserId } from "../../src/model/Ids.ts"
import { TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"

const entry = (token: string, userId = "1"): CachedSession => ({
  session: { userId: UserId.make(userId), tokenHash: createHash("sha256").update(token).digest() },
  touchedAt: 0
})

/** What a lookup in Postgres would find for `token`. */
const found = (token: string, userId?: string) => Effect.succeed(entry(token, userId))

describe("the session cache of a process", () => {
  it.effect("keeps the most recently used sessions up to its capacity", () =>
    Effect.gen(function*() {
      const cache = makeLocalCache(2)
      yield* cache.fill("a", found("a"))
      yield* cache.fill("b", found("b"))
      assert.isDefined(cache.get("a")) // now b is the least recently used
      yield* cache.fill("c", found("c"))
      assert.isDefined(cache.get("a"))
      assert.isUndefined(cache.get("b"))
      assert.isDefined(cache.get("c"))
      assert.strictEqual(cache.size(), 2)
      assert.isUndefined(yield* cache.fill("d", Effect.succeed(undefined)))
      assert.strictEqual(cache.size(), 2)
    }))

  it.effect("evicts revoked sessions by token hash or by user", () =>
    Effect.gen(function*() {
      const cache = makeLocalCache()
      yield* cache.fill("a", found("a", "1"))
      yield* cache.fill("b", found("b", "1"))
      yield* cache.fill("c", found("c", "2"))
      cache.evict({ hashes: [entry("a").session.tokenHash] })
      assert.deepStrictEqual(["a", "b", "c"].map((token) => cache.get(token) !== undefined), [false, true, true])
      cache.evict({ userId: "1" })
      assert.deepStrictEqual(["a", "b", "c"].map((token) => cache.get(token) !== undefined), [false, false, true])
    }))

  it.effect("does not cache what a lookup read before a revocation that came while it ran", () =>
    Effect.gen(function*() {
      const cache = makeLocalCache()
      const racing = Effect.sync(() => {
        cache.evict({ userId: "1" })
        return entry("a", "1")
      })
      const answered = yield* cache.fill("a", racing)
      assert.isDefined(answered) // that request read the row while it existed
      assert.isUndefined(cache.get("a"))
    }))

  it.effect("is bypassed while it may miss revocations, and emptied when it is back", () =>
    Effect.gen(function*() {
      const cache = makeLocalCache()
      yield* cache.fill("a", found("a"))
      cache.setUsable(false)
      assert.isUndefined(cache.get("a"))
      yield* cache.fill("b", found("b"))
      cache.setUsable(true)
      assert.isUndefined(cache.get("a"))
      assert.isUndefined(cache.get("b"))
      assert.strictEqual(cache.size(), 0)
    }))
})

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("session cache over HTTP", (it) => {
  it.effect("a cached session is authenticated without Postgres, past the old 5 s, until it is revoked", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const hash = createHash("sha256").update(token).digest()
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token })).status, 200)

      // Removed behind the server's back: only a request that looked in Postgres would see it gone.
      yield* queryAt(api.databaseUrl, "DELETE FROM sessions WHERE token_hash = $1", [hash])
      yield* Effect.sleep("6 seconds")
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token })).status, 200)

      // A logout evicts it even though its row is gone already.
      assert.strictEqual((yield* api.request("POST", "/auth/logout", { token })).status, 204)
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token })).status, 401)
    }))
})
