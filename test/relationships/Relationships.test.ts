import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { MAX_FRIENDS } from "../../src/model/Relationships.ts"
import { setAcls } from "../support/Acls.ts"
import { field, type Reply, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"

const FRIEND = 1
const BLOCKED = 2
const INCOMING = 3
const OUTGOING = 4

type Row = { readonly id: string; readonly type: number; readonly nickname: string | null; readonly user: { readonly id: string } }

const rows = (reply: Reply): ReadonlyArray<Row> => {
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  assert.ok(Array.isArray(reply.body), JSON.stringify(reply.body))
  return reply.body
}

const expectError = (reply: Reply, status: number, code: string) => {
  assert.strictEqual(reply.status, status, JSON.stringify(reply.body))
  expect(reply.body).toMatchObject({ code })
}

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("relationships over HTTP", (it) => {
  const path = (id?: string) => (id === undefined ? "/users/@me/relationships" : `/users/@me/relationships/${id}`)
  const call = (method: string, token: string, id?: string, body?: unknown) =>
    Effect.flatMap(TestApi, (api) => api.request(method, path(id), { token, body }))
  const list = (token: string) => Effect.map(call("GET", token), rows)
  /** `who`'s relationships as `[other user, type]` pairs. */
  const pairs = (token: string) => Effect.map(list(token), (all) => all.map((r) => [r.id, r.type]))
  const ok = (reply: Reply): Row => {
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body as Row
  }
  const user = Effect.flatMap(TestApi, (api) => api.register({ username: `u_${randomUUID().slice(0, 8)}` }))
  const friends = (a: { token: string; userId: string }, b: { token: string; userId: string }) =>
    Effect.gen(function*() {
      assert.strictEqual(ok(yield* call("POST", a.token, b.userId)).type, OUTGOING)
      assert.strictEqual(ok(yield* call("PUT", b.token, a.userId, {})).type, FRIEND)
    })

  it.effect("a request, seen from both sides, then accepted", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const alice = yield* user
      const bob = yield* user

      // No body at all is an ordinary request.
      const sent = ok(yield* call("POST", alice.token, bob.userId))
      expect(sent).toMatchObject({
        id: bob.userId,
        type: OUTGOING,
        nickname: null,
        share_voice_activity: false,
        friend_shares_voice_activity: false,
        user: { id: bob.userId, discriminator: expect.stringMatching(/^\d{4}$/) }
      })
      assert.ok(!Number.isNaN(Date.parse(field(sent, "since"))))
      assert.deepStrictEqual(yield* pairs(alice.token), [[bob.userId, OUTGOING]])
      assert.deepStrictEqual(yield* pairs(bob.token), [[alice.userId, INCOMING]])
      expect((yield* list(bob.token))[0]?.user).toMatchObject({ id: alice.userId, username: expect.stringMatching(/^u_/) })

      const accepted = ok(yield* call("PUT", bob.token, alice.userId, {}))
      expect(accepted).toMatchObject({ id: alice.userId, type: FRIEND, user: { id: alice.userId } })
      assert.deepStrictEqual(yield* pairs(alice.token), [[bob.userId, FRIEND]])
      assert.deepStrictEqual(yield* pairs(bob.token), [[alice.userId, FRIEND]])
      // Accepting again changes nothing; `type: 1` is the same as no type.
      assert.strictEqual(ok(yield* call("PUT", bob.token, alice.userId, { type: 1 })).type, FRIEND)
      expectError(yield* call("POST", alice.token, bob.userId), 400, "ALREADY_FRIENDS")

      const stored = yield* queryAt(api.databaseUrl, "SELECT type FROM relationships WHERE $1 IN (user_id, target_id)", [alice.userId])
      assert.deepStrictEqual(stored.map((r) => r.type), [FRIEND, FRIEND])
    }))

  it.effect("asking someone who asked you accepts their request", () =>
    Effect.gen(function*() {
      const alice = yield* user
      const bob = yield* user
      yield* call("POST", alice.token, bob.userId)
      assert.strictEqual(ok(yield* call("POST", bob.token, alice.userId, {})).type, FRIEND)
      assert.deepStrictEqual(yield* pairs(alice.token), [[bob.userId, FRIEND]])

      // Two people asking each other at the same moment end up friends too.
      const carol = yield* user
      const dave = yield* user
      const [one, two] = yield* Effect.all([call("POST", carol.token, dave.userId), call("POST", dave.token, carol.userId)], {
        concurrency: 2
      })
      assert.deepStrictEqual([one.status, two.status], [200, 200])
      assert.deepStrictEqual(yield* pairs(carol.token), [[dave.userId, FRIEND]])
      assert.deepStrictEqual(yield* pairs(dave.token), [[carol.userId, FRIEND]])
    }))

  it.effect("withdrawing, ignoring and unfriending", () =>
    Effect.gen(function*() {
      const alice = yield* user
      const bob = yield* user

      yield* call("POST", alice.token, bob.userId)
      assert.strictEqual((yield* call("DELETE", alice.token, bob.userId)).status, 204)
      assert.deepStrictEqual(yield* pairs(alice.token), [])
      assert.deepStrictEqual(yield* pairs(bob.token), [])

      // Ignoring leaves the sender's request pending, and asking again does not bring it back.
      yield* call("POST", alice.token, bob.userId)
      assert.strictEqual((yield* call("DELETE", bob.token, alice.userId)).status, 204)
      assert.deepStrictEqual(yield* pairs(bob.token), [])
      assert.strictEqual(ok(yield* call("POST", alice.token, bob.userId)).type, OUTGOING)
      assert.deepStrictEqual(yield* pairs(bob.token), [])
      // Bob changing his mind makes them friends.
      assert.strictEqual(ok(yield* call("POST", bob.token, alice.userId)).type, FRIEND)

      assert.strictEqual((yield* call("DELETE", bob.token, alice.userId)).status, 204)
      assert.deepStrictEqual(yield* pairs(alice.token), [])
      assert.deepStrictEqual(yield* pairs(bob.token), [])
      expectError(yield* call("DELETE", bob.token, alice.userId), 404, "UNKNOWN_USER")
    }))

  it.effect("blocking ends a friendship and stops requests both ways until unblocked", () =>
    Effect.gen(function*() {
      const alice = yield* user
      const bob = yield* user
      yield* friends(alice, bob)

      expect(ok(yield* call("PUT", alice.token, bob.userId, { type: 2 }))).toMatchObject({ id: bob.userId, type: BLOCKED })
      assert.deepStrictEqual(yield* pairs(alice.token), [[bob.userId, BLOCKED]])
      assert.deepStrictEqual(yield* pairs(bob.token), [])

      expectError(yield* call("POST", bob.token, alice.userId), 400, "FRIEND_REQUEST_BLOCKED")
      expectError(yield* call("POST", alice.token, bob.userId), 400, "CANNOT_SEND_FRIEND_REQUEST_TO_BLOCKED_USER")
      expectError(yield* call("PUT", bob.token, alice.userId, {}), 404, "UNKNOWN_USER")
      assert.deepStrictEqual(yield* pairs(alice.token), [[bob.userId, BLOCKED]])

      assert.strictEqual((yield* call("DELETE", alice.token, bob.userId)).status, 204)
      assert.deepStrictEqual(yield* pairs(alice.token), [])
      assert.strictEqual(ok(yield* call("POST", bob.token, alice.userId)).type, OUTGOING)
    }))

  it.effect("blocking the sender of a request does not tell them", () =>
    Effect.gen(function*() {
      const alice = yield* user
      const bob = yield* user
      yield* call("POST", alice.token, bob.userId)
      assert.strictEqual(ok(yield* call("PUT", bob.token, alice.userId, { type: 2 })).type, BLOCKED)
      assert.deepStrictEqual(yield* pairs(alice.token), [[bob.userId, OUTGOING]])
      assert.deepStrictEqual(yield* pairs(bob.token), [[alice.userId, BLOCKED]])

      // Blocking your own pending request's recipient withdraws it.
      const carol = yield* user
      yield* call("POST", alice.token, carol.userId)
      yield* call("PUT", alice.token, carol.userId, { type: 2 })
      assert.deepStrictEqual(yield* pairs(carol.token), [])
    }))

  it.effect("requests by username and discriminator", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const alice = yield* user
      const bob = yield* user
      const profile = (yield* api.request("GET", "/users/@me", { token: bob.token })).body
      const username = field(profile, "username")
      const discriminator = field(profile, "discriminator")

      // The discriminator as a number, the name in another case.
      const byNumber = ok(yield* call("POST", alice.token, undefined, { username: username.toUpperCase(), discriminator: Number(discriminator) }))
      expect(byNumber).toMatchObject({ id: bob.userId, type: OUTGOING })
      yield* call("PUT", bob.token, alice.userId)
      expectError(yield* call("POST", alice.token, undefined, { username, discriminator }), 400, "ALREADY_FRIENDS")

      const carol = yield* user
      const mine = (yield* api.request("GET", "/users/@me", { token: carol.token })).body
      expectError(
        yield* call("POST", carol.token, undefined, { username: field(mine, "username"), discriminator: field(mine, "discriminator") }),
        400,
        "CANNOT_SEND_FRIEND_REQUEST_TO_SELF"
      )
      expectError(yield* call("POST", carol.token, undefined, { username: "nobody_has_this", discriminator: "1" }), 400, "NO_USERS_WITH_SERVICETAG_EXIST")
      expectError(yield* call("POST", carol.token, undefined, { username }), 400, "DISCRIMINATOR_REQUIRED")

      for (const [body, where, code] of [
        [{ username: "not a name!", discriminator: "1" }, "username", "INVALID_FORMAT"],
        [{ username, discriminator: "12345" }, "discriminator", undefined],
        [{ username, discriminator: 10_000 }, "discriminator", undefined],
        [{ discriminator: "1" }, "username", undefined]
      ] as const) {
        const reply = yield* call("POST", carol.token, undefined, body)
        expectError(reply, 400, "INVALID_FORM_BODY")
        expect(reply.body).toMatchObject({ errors: [expect.objectContaining({ path: where, ...(code === undefined ? {} : { code }) })] })
      }
    }))

  it.effect("refuses requests that cannot be", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const alice = yield* user
      const bob = yield* user
      expectError(yield* call("POST", alice.token, alice.userId), 400, "CANNOT_SEND_FRIEND_REQUEST_TO_SELF")
      expectError(yield* call("POST", alice.token, "1234567890123"), 404, "UNKNOWN_USER")
      expectError(yield* call("PUT", alice.token, "1234567890123", { type: 2 }), 404, "UNKNOWN_USER")
      expectError(yield* call("PUT", alice.token, alice.userId, { type: 2 }), 400, "BAD_REQUEST")
      expectError(yield* call("PUT", alice.token, bob.userId, {}), 404, "UNKNOWN_USER")
      expectError(yield* call("POST", alice.token, "not-an-id"), 400, "INVALID_FORM_BODY")
      expectError(yield* call("PUT", alice.token, bob.userId, { type: 3 }), 400, "INVALID_FORM_BODY")
      expectError(yield* call("POST", alice.token, bob.userId, { staff_force_accept: "yes" }), 400, "INVALID_FORM_BODY")
      // Only staff may skip the request.
      expectError(yield* call("POST", alice.token, bob.userId, { staff_force_accept: true }), 403, "MISSING_PERMISSIONS")

      const disabled = yield* user
      yield* queryAt(api.databaseUrl, "UPDATE users SET disabled_at = now() WHERE id = $1", [disabled.userId])
      expectError(yield* call("POST", alice.token, disabled.userId), 400, "FRIEND_REQUEST_BLOCKED")
      const bot = yield* user
      yield* queryAt(api.databaseUrl, "UPDATE users SET bot = true WHERE id = $1", [bot.userId])
      expectError(yield* call("POST", alice.token, bot.userId), 400, "FRIEND_REQUEST_BLOCKED")
      assert.deepStrictEqual(yield* pairs(alice.token), [])
    }))

  it.effect("staff can make a friendship at once", () =>
    Effect.gen(function*() {
      const staff = yield* user
      const bob = yield* user
      yield* setAcls(staff.userId)
      assert.strictEqual(ok(yield* call("POST", staff.token, bob.userId, { staff_force_accept: true })).type, FRIEND)
      assert.deepStrictEqual(yield* pairs(bob.token), [[staff.userId, FRIEND]])
    }))

  it.effect("friends may be given nicknames only their namer sees", () =>
    Effect.gen(function*() {
      const alice = yield* user
      const bob = yield* user
      const carol = yield* user
      yield* friends(alice, bob)

      expect(ok(yield* call("PATCH", alice.token, bob.userId, { nickname: "Bestie Bob" }))).toMatchObject({ id: bob.userId, nickname: "Bestie Bob" })
      expect((yield* list(alice.token))[0]).toMatchObject({ nickname: "Bestie Bob" })
      expect((yield* list(bob.token))[0]).toMatchObject({ nickname: null })
      assert.strictEqual(ok(yield* call("PATCH", alice.token, bob.userId, { nickname: "  " })).nickname, null)
      yield* call("PATCH", alice.token, bob.userId, { nickname: "Bob" })
      assert.strictEqual(ok(yield* call("PATCH", alice.token, bob.userId, { nickname: null })).nickname, null)

      expectError(yield* call("PATCH", alice.token, carol.userId, { nickname: "Carol" }), 400, "NOT_FRIENDS_WITH_USER")
      expectError(yield* call("PATCH", alice.token, bob.userId, { nickname: "x".repeat(33) }), 400, "INVALID_FORM_BODY")
      expectError(yield* call("PATCH", alice.token, bob.userId, {}), 400, "INVALID_FORM_BODY")
    }))

  it.effect(`stops at ${MAX_FRIENDS} friends and requests`, () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const alice = yield* user
      const bob = yield* user
      const carol = yield* user
      // Stand-in accounts filling Alice's list, written directly: registering a thousand would take minutes.
      // Their small ids cannot meet a real snowflake. Written before anything wakes Alice's actor, which loads them.
      const base = 1_000_000n
      yield* queryAt(
        api.databaseUrl,
        `INSERT INTO users (id, username, discriminator)
         SELECT $1::bigint + n, 'filler_' || n, '0001' FROM generate_series(1, $2::int) AS n`,
        [base.toString(), MAX_FRIENDS]
      )
      yield* queryAt(
        api.databaseUrl,
        `INSERT INTO relationships (user_id, target_id, type)
         SELECT $1::bigint, $2::bigint + n, 1 FROM generate_series(1, $3::int) AS n`,
        [alice.userId, base.toString(), MAX_FRIENDS]
      )
      yield* call("POST", carol.token, alice.userId)
      expectError(yield* call("POST", alice.token, bob.userId), 400, "MAX_FRIENDS")
      expectError(yield* call("PUT", alice.token, carol.userId, {}), 400, "MAX_FRIENDS")
      assert.strictEqual((yield* list(alice.token)).length, MAX_FRIENDS + 1)
      // A block is not a friend: it is still possible.
      assert.strictEqual(ok(yield* call("PUT", alice.token, bob.userId, { type: 2 })).type, BLOCKED)
    }))

  it.effect("every route needs a session", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const bob = yield* user
      for (const [method, id, body] of [
        ["GET", undefined, undefined],
        ["POST", undefined, { username: "someone", discriminator: "1" }],
        ["POST", bob.userId, {}],
        ["PUT", bob.userId, {}],
        ["DELETE", bob.userId, undefined],
        ["PATCH", bob.userId, { nickname: null }]
      ] as const) {
        expectError(yield* api.request(method, path(id), { body }), 401, "UNAUTHORIZED")
        expectError(yield* api.request(method, path(id), { body, token: "not-a-session" }), 401, "UNAUTHORIZED")
      }
      assert.deepStrictEqual(yield* pairs(bob.token), [])
    }))
})
