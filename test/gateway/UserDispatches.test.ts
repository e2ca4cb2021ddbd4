import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, field, TestApi } from "../support/Api.ts"
import { dataOf, type Frame, type GatewayClient, identified, nextMatching, nextOfType } from "./Client.ts"

const PASSWORD = "correct horse battery"

const hasId = (id: string) => (d: unknown) => typeof d === "object" && d !== null && "id" in d && d.id === id

/** The relationship event naming `id` (the other user), with its type. */
const relationshipEvent = (client: GatewayClient, type: string, id: string) =>
  Effect.map(nextMatching(client, type, hasId(id)), dataOf)

/**
 * The dispatches a session got before `marker` (a USER_UPDATE of its own user carrying `bio`).
 * User events reach a session in the order they were published, so whatever an earlier
 * change was to send it is among them.
 */
const until = (client: GatewayClient, bio: string) =>
  Effect.gen(function*() {
    const seen: Array<Frame> = []
    for (;;) {
      const frame = yield* client.dispatch
      if (frame.t === "USER_UPDATE" && dataOf(frame).bio === bio) return seen
      seen.push(frame)
    }
  })

/** Sends a marker USER_UPDATE to `token`'s sessions and answers what `client` got before it. */
const drain = (client: GatewayClient, token: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const bio = `marker ${Math.random()}`
    assert.strictEqual((yield* api.request("PATCH", "/users/@me", { token, body: { bio } })).status, 200)
    return yield* until(client, bio)
  })

const record = (value: unknown) => dataOf({ op: 0, d: value })

/** Two new users, each with a gateway session: `a` is Alice's (with its READY), `b` Bob's. */
const aliceAndBob = Effect.gen(function*() {
  const api = yield* TestApi
  const alice = yield* api.register()
  const bob = yield* api.register()
  const { client: a, ready } = yield* identified(alice.token)
  const { client: b } = yield* identified(bob.token)
  return { alice, bob, a, b, ready }
})

const typesOf = (frames: ReadonlyArray<Frame>) => frames.map((f) => f.t)
const relationshipTypes = (frames: ReadonlyArray<Frame>) => typesOf(frames).filter((t) => t?.startsWith("RELATIONSHIP_"))

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("user-addressed dispatches", (it) => {
  it.effect("USER_UPDATE after PATCH /users/@me reaches every session of the user, as READY's user, and nobody else", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { alice, bob, a: first, b: other, ready } = yield* aliceAndBob
      const { client: second } = yield* identified(alice.token)

      const bad = yield* api.request("PATCH", "/users/@me", { token: alice.token, body: { timezone: "Mars/Olympus" } })
      expectError(bad, 400, "INVALID_FORM_BODY")
      const reply = yield* api.request("PATCH", "/users/@me", {
        token: alice.token,
        body: { global_name: "Alice A", bio: "hello", username: "alice_renamed", password: PASSWORD }
      })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))

      for (const session of [first, second]) {
        const update = dataOf(yield* nextOfType(session, "USER_UPDATE"))
        // The HTTP answer and the dispatch leave out the same unset optional fields (mention_flags).
        expect(update).toEqual(reply.body)
        expect(update).toMatchObject({ id: alice.userId, global_name: "Alice A", bio: "hello", username: "alice_renamed" })
        expect(Object.keys(update).sort()).toEqual(Object.keys(record(ready.user)).sort())
      }
      // The refused change sent nothing: the first USER_UPDATE was the committed one.
      expect(typesOf(yield* drain(other, bob.token))).not.toContain("USER_UPDATE")
    }))

  it.effect("friend requests, acceptance, removal and blocks tell each side what it now has", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const alice = yield* api.register()
      const bob = yield* api.register()
      const carol = yield* api.register()
      const a = (yield* identified(alice.token)).client
      const b = (yield* identified(bob.token)).client
      const c = (yield* identified(carol.token)).client
      const relate = (method: string, token: string, target: string, body?: unknown) =>
        api.request(method, `/users/@me/relationships/${target}`, { token, body })

      expectError(yield* relate("POST", alice.token, alice.userId, {}), 400, "CANNOT_SEND_FRIEND_REQUEST_TO_SELF")
      assert.strictEqual((yield* relate("POST", alice.token, bob.userId, {})).status, 200)
      expect(yield* relationshipEvent(a, "RELATIONSHIP_ADD", bob.userId)).toMatchObject({ type: 4, user: { id: bob.userId } })
      expect(yield* relationshipEvent(b, "RELATIONSHIP_ADD", alice.userId)).toMatchObject({ type: 3, user: { id: alice.userId } })

      assert.strictEqual((yield* relate("PUT", bob.token, alice.userId, {})).status, 200)
      const accepted = yield* relationshipEvent(a, "RELATIONSHIP_ADD", bob.userId)
      expect(accepted).toMatchObject({ type: 1 })
      expect(yield* relationshipEvent(b, "RELATIONSHIP_ADD", alice.userId)).toMatchObject({ type: 1 })
      // The event carries the row as the list shows it.
      const list = yield* api.request("GET", "/users/@me/relationships", { token: alice.token })
      expect(list.body).toEqual([accepted])

      assert.strictEqual((yield* relate("DELETE", alice.token, bob.userId)).status, 204)
      expect(yield* relationshipEvent(a, "RELATIONSHIP_REMOVE", bob.userId)).toMatchObject({ type: 1 })
      expect(yield* relationshipEvent(b, "RELATIONSHIP_REMOVE", alice.userId)).toMatchObject({ type: 1 })

      // A block is the blocker's alone: the blocked user, no longer a friend, is not told.
      assert.strictEqual((yield* relate("PUT", bob.token, alice.userId, { type: 2 })).status, 200)
      expect(yield* relationshipEvent(b, "RELATIONSHIP_ADD", alice.userId)).toMatchObject({ type: 2 })
      expectError(yield* relate("POST", alice.token, bob.userId, {}), 400, "FRIEND_REQUEST_BLOCKED")
      const toAlice = yield* drain(a, alice.token)
      expect(relationshipTypes(toAlice)).toEqual([])

      // Unblocking is a removal of the blocker's row.
      assert.strictEqual((yield* relate("DELETE", bob.token, alice.userId)).status, 204)
      expect(yield* relationshipEvent(b, "RELATIONSHIP_REMOVE", alice.userId)).toMatchObject({ type: 2 })
      const toBob = yield* drain(b, bob.token)
      expect(relationshipTypes(toBob)).toEqual([])

      const toCarol = yield* drain(c, carol.token)
      expect(relationshipTypes(toCarol)).toEqual([])
    }))

  it.effect("AUTH_SESSION_CHANGE tells the user's sessions of a login and a logout, with the session's id hash", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { alice, bob, a, b } = yield* aliceAndBob

      const login = yield* api.request("POST", "/auth/login", { body: { email: alice.email, password: PASSWORD } })
      assert.strictEqual(login.status, 200, JSON.stringify(login.body))
      const token = field(login.body, "token")
      const sessions = yield* api.request("GET", "/auth/sessions", { token })
      assert.strictEqual(sessions.status, 200)
      const listed = Array.isArray(sessions.body) ? sessions.body.map(record) : []
      const idHash = listed.find((s) => s.current === true)?.id_hash
      assert.isString(idHash)

      expect(dataOf(yield* nextOfType(a, "AUTH_SESSION_CHANGE"))).toEqual({ auth_session_id_hash: idHash })
      expectError(yield* api.request("POST", "/auth/logout", { token: "not-a-session" }), 401, "UNAUTHORIZED")
      assert.strictEqual((yield* api.request("POST", "/auth/logout", { token })).status, 204)
      expect(dataOf(yield* nextOfType(a, "AUTH_SESSION_CHANGE"))).toEqual({ auth_session_id_hash: idHash })

      expect(typesOf(yield* drain(b, bob.token))).not.toContain("AUTH_SESSION_CHANGE")
      // The refused logout changed nothing: the next one the user's session sees is a real change.
      expect(typesOf(yield* drain(a, alice.token))).not.toContain("AUTH_SESSION_CHANGE")
    }))

  it.effect("USER_SETTINGS_UPDATE carries the settings GET shows to the user's sessions; a new session's READY has them", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { alice, bob, a: first, b: other } = yield* aliceAndBob
      const { client: second } = yield* identified(alice.token)

      expectError(yield* api.request("PATCH", "/users/@me/settings", { token: alice.token, body: { status: "asleep" } }), 400, "INVALID_FORM_BODY")
      const reply = yield* api.request("PATCH", "/users/@me/settings", {
        token: alice.token,
        body: { status: "dnd", developer_mode: true, theme: "light" }
      })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      expect(reply.body).toMatchObject({ status: "dnd", developer_mode: true, theme: "light" })
      for (const session of [first, second]) {
        // The refused change sent nothing: the first USER_SETTINGS_UPDATE is the committed one.
        expect(dataOf(yield* nextOfType(session, "USER_SETTINGS_UPDATE"))).toEqual(reply.body)
      }
      expect((yield* api.request("GET", "/users/@me/settings", { token: alice.token })).body).toEqual(reply.body)
      const { ready } = yield* identified(alice.token)
      expect(record(ready.user_settings)).toEqual(reply.body)
      expect(typesOf(yield* drain(other, bob.token))).not.toContain("USER_SETTINGS_UPDATE")
    }))

  it.effect("USER_NOTE_UPDATE tells the writer's sessions of a note set and cleared, and nobody else", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { alice, bob, a, b } = yield* aliceAndBob
      const note = (body: unknown) => api.request("PUT", `/users/@me/notes/${bob.userId}`, { token: alice.token, body })

      expectError(yield* note({ note: 12 }), 400, "INVALID_FORM_BODY")
      assert.strictEqual((yield* note({ note: "met at the fair" })).status, 204)
      expect(dataOf(yield* nextOfType(a, "USER_NOTE_UPDATE"))).toEqual({ id: bob.userId, note: "met at the fair" })
      expect((yield* api.request("GET", `/users/@me/notes/${bob.userId}`, { token: alice.token })).body).toEqual({ note: "met at the fair" })

      assert.strictEqual((yield* note({ note: "  " })).status, 204)
      expect(dataOf(yield* nextOfType(a, "USER_NOTE_UPDATE"))).toEqual({ id: bob.userId, note: "" })
      expectError(yield* api.request("GET", `/users/@me/notes/${bob.userId}`, { token: alice.token }), 404, "UNKNOWN_USER")
      expect(typesOf(yield* drain(b, bob.token))).not.toContain("USER_NOTE_UPDATE")
    }))
})
