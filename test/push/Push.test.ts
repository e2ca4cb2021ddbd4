import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createECDH, createHash, randomBytes, randomUUID } from "node:crypto"
import { decodeKey, endpointProblem } from "../../src/push/Keys.ts"
import { MAX_SUBSCRIPTIONS } from "../../src/model/PushSubscriptions.ts"
import { field, type Reply, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"

/** What a browser's `PushSubscription.toJSON()` holds: a fresh P-256 key and auth secret, base64url. */
const browserSubscription = (endpoint = `https://push.example.com/send/${randomUUID()}`) => {
  const ecdh = createECDH("prime256v1")
  ecdh.generateKeys()
  return { endpoint, keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") } }
}

const expectError = (reply: Reply, status: number, code: string) => {
  assert.strictEqual(reply.status, status, JSON.stringify(reply.body))
  expect(reply.body).toMatchObject({ code })
}

describe("push subscription checks", () => {
  it("reads base64url and padded base64 keys", () => {
    const bytes = randomBytes(65)
    assert.deepStrictEqual(decodeKey(bytes.toString("base64url")), bytes)
    assert.deepStrictEqual(decodeKey(bytes.toString("base64")), bytes)
    assert.strictEqual(decodeKey("not base64!"), undefined)
  })

  it("takes only https endpoints on public host names", () => {
    assert.strictEqual(endpointProblem("https://fcm.googleapis.com/fcm/send/abc"), undefined)
    assert.strictEqual(endpointProblem("https://updates.push.services.mozilla.com/wpush/v2/abc"), undefined)
    for (const bad of ["http://push.example.com/x", "https://127.0.0.1/x", "https://[::1]/x", "https://localhost/x",
      "https://intranet/x", "https://push.local/x", "https://user:pw@push.example.com/x", "push.example.com/x"]) {
      assert.isString(endpointProblem(bad), bad)
    }
  })
})

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("push subscriptions over HTTP", (it) => {
  const subscribe = (token: string, body: unknown) => Effect.flatMap(TestApi, (api) => api.request("POST", "/users/@me/push/subscribe", { token, body }))
  const list = (token: string) =>
    Effect.gen(function*() {
      const reply = yield* Effect.flatMap(TestApi, (api) => api.request("GET", "/users/@me/push/subscriptions", { token }))
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      const body = reply.body as { subscriptions: Array<{ subscription_id: string; user_agent: string | null }> }
      return body.subscriptions
    })
  const remove = (token: string, id: string) =>
    Effect.flatMap(TestApi, (api) => api.request("DELETE", `/users/@me/push/subscriptions/${id}`, { token }))
  const subscribed = (token: string, body: unknown) =>
    Effect.gen(function*() {
      const reply = yield* subscribe(token, body)
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      return field(reply.body, "subscription_id")
    })

  it.effect("subscribes, lists and unsubscribes a device", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId } = yield* api.register()
      const browser = browserSubscription()
      const id = yield* subscribed(token, { ...browser, user_agent: "Firefox on Linux" })
      assert.match(id, /^[a-f0-9]{32}$/)
      assert.deepStrictEqual(yield* list(token), [{ subscription_id: id, user_agent: "Firefox on Linux" }])

      const stored = yield* queryAt(api.databaseUrl, "SELECT endpoint, p256dh, auth, user_id::text FROM push_subscriptions WHERE id = $1", [id])
      assert.deepStrictEqual(stored, [{ endpoint: browser.endpoint, p256dh: browser.keys.p256dh, auth: browser.keys.auth, user_id: userId }])

      // The same endpoint again (keys rotated, written as padded base64) is the same subscription.
      const rotated = browserSubscription(browser.endpoint)
      const padded = { p256dh: Buffer.from(rotated.keys.p256dh, "base64url").toString("base64"), auth: Buffer.from(rotated.keys.auth, "base64url").toString("base64") }
      assert.strictEqual(yield* subscribed(token, { endpoint: browser.endpoint, keys: padded }), id)
      assert.deepStrictEqual(yield* list(token), [{ subscription_id: id, user_agent: "Firefox on Linux" }])
      const keys = yield* queryAt(api.databaseUrl, "SELECT p256dh, auth FROM push_subscriptions WHERE id = $1", [id])
      assert.deepStrictEqual(keys, [rotated.keys])

      const other = yield* subscribed(token, browserSubscription())
      assert.notStrictEqual(other, id)
      assert.deepStrictEqual((yield* list(token)).map((s) => s.subscription_id), [id, other])
      assert.deepStrictEqual((yield* list(token)).find((s) => s.subscription_id === other)?.user_agent, null)

      const removed = yield* remove(token, id)
      assert.strictEqual(removed.status, 200)
      assert.deepStrictEqual(removed.body, { success: true })
      assert.deepStrictEqual((yield* list(token)).map((s) => s.subscription_id), [other])
      expectError(yield* remove(token, id), 404, "UNKNOWN_PUSH_SUBSCRIPTION")
    }))

  it.effect("one user never sees or removes another's subscriptions", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const alice = yield* api.register()
      const mallory = yield* api.register()
      const browser = browserSubscription()
      const id = yield* subscribed(alice.token, browser)

      assert.deepStrictEqual(yield* list(mallory.token), [])
      expectError(yield* remove(mallory.token, id), 404, "UNKNOWN_PUSH_SUBSCRIPTION")
      // Subscribing the same endpoint makes Mallory a subscription of her own, not a handle on Alice's.
      const mine = yield* subscribed(mallory.token, browser)
      assert.notStrictEqual(mine, id)
      assert.deepStrictEqual((yield* list(alice.token)).map((s) => s.subscription_id), [id])
      assert.deepStrictEqual((yield* list(mallory.token)).map((s) => s.subscription_id), [mine])
    }))

  it.effect("signing the session out ends its subscriptions", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId } = yield* api.register()
      yield* subscribed(token, browserSubscription())
      const idHash = createHash("sha256").update(token).digest("base64url")
      const logout = yield* api.request("POST", "/auth/sessions/logout", { token, body: { session_id_hashes: [idHash] } })
      assert.strictEqual(logout.status, 204, JSON.stringify(logout.body))
      const left = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM push_subscriptions WHERE user_id = $1", [userId])
      assert.deepStrictEqual(left, [{ n: 0 }])
    }))

  it.effect("a session signed out elsewhere: its devices leave the list the user's other sessions see", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, email } = yield* api.register()
      const login = yield* api.request("POST", "/auth/login", { body: { email, password: "correct horse battery" } })
      const other = field(login.body, "token")
      const gone = yield* subscribed(token, browserSubscription())
      const kept = yield* subscribed(other, browserSubscription())
      assert.deepStrictEqual((yield* list(other)).map((s) => s.subscription_id), [gone, kept])
      assert.strictEqual((yield* api.request("POST", "/auth/logout", { token })).status, 204)
      assert.deepStrictEqual((yield* list(other)).map((s) => s.subscription_id), [kept])
    }))

  it.effect("a session whose row is gone subscribes nothing, even while authentication still knows it", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, email, userId } = yield* api.register()
      const login = yield* api.request("POST", "/auth/login", { body: { email, password: "correct horse battery" } })
      const other = field(login.body, "token")
      // Resolved once, the session is remembered by authentication for a while (auth/Sessions.ts).
      assert.deepStrictEqual(yield* list(token), [])
      const hash = createHash("sha256").update(token).digest("hex")
      yield* queryAt(api.databaseUrl, "DELETE FROM sessions WHERE token_hash = decode($1, 'hex')", [hash])
      expectError(yield* subscribe(token, browserSubscription()), 401, "UNAUTHORIZED")
      assert.deepStrictEqual(yield* list(other), [])
      const stored = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM push_subscriptions WHERE user_id = $1", [userId])
      assert.deepStrictEqual(stored, [{ n: 0 }])
    }))

  it.effect(`keeps the ${MAX_SUBSCRIPTIONS} most recent devices`, () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const ids: Array<string> = []
      for (let i = 0; i <= MAX_SUBSCRIPTIONS; i++) ids.push(yield* subscribed(token, browserSubscription()))
      const kept = (yield* list(token)).map((s) => s.subscription_id)
      assert.strictEqual(kept.length, MAX_SUBSCRIPTIONS)
      assert.deepStrictEqual(kept, ids.slice(1))
    }))

  it.effect("refuses what cannot be a Web Push subscription", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const good = browserSubscription()
      for (const [body, path, code] of [
        [{ ...good, endpoint: "http://push.example.com/x" }, "endpoint", "INVALID_URL_FORMAT"],
        [{ ...good, endpoint: "https://127.0.0.1/x" }, "endpoint", "INVALID_URL_FORMAT"],
        [{ ...good, endpoint: "https://localhost:8443/x" }, "endpoint", "INVALID_URL_FORMAT"],
        [{ ...good, endpoint: "not a url" }, "endpoint", "INVALID_URL_FORMAT"],
        [{ ...good, endpoint: `https://push.example.com/${"a".repeat(2048)}` }, "endpoint", "STRING_LENGTH_INVALID"],
        [{ ...good, keys: { ...good.keys, p256dh: randomBytes(64).toString("base64url") } }, "keys.p256dh", "BASE64_LENGTH_INVALID"],
        [{ ...good, keys: { ...good.keys, auth: "not base64!" } }, "keys.auth", "INVALID_BASE64_FORMAT"],
        [{ ...good, keys: { ...good.keys, auth: randomBytes(32).toString("base64url") } }, "keys.auth", "BASE64_LENGTH_INVALID"],
        [{ ...good, user_agent: "x".repeat(1025) }, "user_agent", "STRING_LENGTH_INVALID"],
        [{ endpoint: good.endpoint }, "keys", undefined],
        [{ keys: good.keys }, "endpoint", undefined]
      ] as const) {
        const reply = yield* subscribe(token, body)
        expectError(reply, 400, "INVALID_FORM_BODY")
        expect(reply.body).toMatchObject({ errors: [expect.objectContaining({ path, ...(code === undefined ? {} : { code }) })] })
      }
      expectError(yield* remove(token, "x".repeat(65)), 400, "INVALID_FORM_BODY")
      assert.deepStrictEqual(yield* list(token), [])
    }))

  it.effect("every route needs a session", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const id = yield* subscribed(token, browserSubscription())
      for (const [method, path, body] of [
        ["POST", "/users/@me/push/subscribe", browserSubscription()],
        ["GET", "/users/@me/push/subscriptions", undefined],
        ["DELETE", `/users/@me/push/subscriptions/${id}`, undefined]
      ] as const) {
        expectError(yield* api.request(method, path, { body }), 401, "UNAUTHORIZED")
        expectError(yield* api.request(method, path, { body, token: "not-a-session" }), 401, "UNAUTHORIZED")
      }
      assert.deepStrictEqual((yield* list(token)).map((s) => s.subscription_id), [id])
    }))
})
