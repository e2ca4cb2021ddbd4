import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { createGuild } from "../../support/Cast.ts"
import { setAcls } from "../../support/Acls.ts"
import { expectError, field, type Reply, TestApi } from "../../support/Api.ts"
import { addSecurityKey, PASSWORD } from "../../mfa/Support.ts"
import { guildOfTwo } from "../../invites/Fixtures.ts"


/** `body[key]` as an array, or a failed test. */
const listOf = (body: unknown, key: string): ReadonlyArray<Record<string, unknown>> => {
  const value: unknown = typeof body === "object" && body !== null && key in body ? Reflect.get(body, key) : undefined
  if (!Array.isArray(value)) return assert.fail(`no ${key} list in ${JSON.stringify(body)}`)
  return value
}
const totalOf = (body: unknown): unknown => (typeof body === "object" && body !== null && "total" in body ? body.total : undefined)
const idsOf = (body: unknown, key: string, id = "id") => listOf(body, key).map((entry) => entry[id])

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("admin users, read side", (it) => {
  /** POST `path` as the operator key, or as `token`. */
  const post = (path: string, body: unknown, token?: string) =>
    Effect.flatMap(TestApi, (api) => api.request("POST", `/admin/users/${path}`, { token: token ?? `Admin ${api.adminKey}`, body }))
  const ok = (reply: Reply) => {
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body
  }

  /** A caller with admin:authenticate and an ACL that is not the route's is refused; one without credentials is a 401. */
  const guarded = (path: string, body: unknown) =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const staff = yield* api.register()
      yield* setAcls(staff.userId, ["admin:authenticate", "gateway:memory_stats"])
      expectError(yield* post(path, body, staff.token), 403, "MISSING_PERMISSIONS")
      assert.strictEqual((yield* api.request("POST", `/admin/users/${path}`, { body })).status, 401)
    })

  it.effect("lookup finds a user by id, tag or email, or many by ids", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const a = yield* api.register({ username: `l_${randomUUID().slice(0, 8)}` })
      const b = yield* api.register()
      const me = yield* api.request("GET", "/users/@me", { token: a.token })
      const tag = `${field(me.body, "username").toUpperCase()}#${Number(field(me.body, "discriminator"))}`

      for (const query of [a.userId, tag, a.email.toUpperCase(), `  ${a.email}  `]) {
        const found = ok(yield* post("lookup", { query }))
        assert.deepStrictEqual(idsOf(found, "users"), [a.userId], query)
      }
      expect(listOf(ok(yield* post("lookup", { query: a.userId })), "users")[0]).toMatchObject({
        id: a.userId,
        email: a.email,
        acls: [],
        has_totp: false
      })
      for (const query of ["nobody@example.com", "+15550000000", "no-such-thing", "9223372036854775808"]) {
        assert.deepStrictEqual(ok(yield* post("lookup", { query })), { users: [] }, query)
      }
      // Ids in the order asked; unknown and repeated ones drop out.
      const many = ok(yield* post("lookup", { user_ids: [b.userId, "1", a.userId, b.userId] }))
      assert.deepStrictEqual(idsOf(many, "users"), [b.userId, a.userId])

      expectError(yield* post("lookup", {}), 400, "INVALID_FORM_BODY")
      expectError(yield* post("lookup", { query: "" }), 400, "INVALID_FORM_BODY")
      expectError(yield* post("lookup", { user_ids: ["x"] }), 400, "INVALID_FORM_BODY")
      expectError(yield* post("lookup", { user_ids: Array.from({ length: 101 }, (_, i) => String(i + 1)) }), 400, "INVALID_FORM_BODY")
      yield* guarded("lookup", { query: a.userId })
    }))

  it.effect("search pages users by name or email prefix, case-insensitively, with the total", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const prefix = `s${randomUUID().slice(0, 6)}`
      const users = [
        yield* api.register({ username: `${prefix}_a` }),
        yield* api.register({ username: `${prefix}_b` }),
        yield* api.register({ username: `${prefix}_c` })
      ]
      const ids = users.map((u) => u.userId).sort((x, y) => (BigInt(x) < BigInt(y) ? -1 : 1))
      const [, second, third] = users
      if (second === undefined || third === undefined) return assert.fail("three users")

      const all = ok(yield* post("search", { query: prefix.toUpperCase() }))
      assert.deepStrictEqual(idsOf(all, "users"), ids)
      assert.strictEqual(totalOf(all), 3)
      const first = ok(yield* post("search", { query: prefix, limit: 2 }))
      assert.deepStrictEqual(idsOf(first, "users"), ids.slice(0, 2))
      assert.strictEqual(totalOf(first), 3)
      const rest = ok(yield* post("search", { query: prefix, limit: 2, offset: 2 }))
      assert.deepStrictEqual(idsOf(rest, "users"), ids.slice(2))
      assert.strictEqual(totalOf(rest), 3)

      const byEmail = ok(yield* post("search", { query: second.email }))
      assert.deepStrictEqual(idsOf(byEmail, "users"), [second.userId])
      const byId = ok(yield* post("search", { query: third.userId }))
      assert.include(idsOf(byId, "users"), third.userId)
      // A `%` is a character to match, not a wildcard.
      assert.deepStrictEqual(ok(yield* post("search", { query: `${prefix}%` })), { users: [], total: 0 })
      const unfiltered = ok(yield* post("search", { limit: 1 }))
      assert.strictEqual(listOf(unfiltered, "users").length, 1)
      assert.isAtLeast(Number(totalOf(unfiltered)), 3)

      expectError(yield* post("search", { limit: 0 }), 400, "INVALID_FORM_BODY")
      expectError(yield* post("search", { offset: -1 }), 400, "INVALID_FORM_BODY")
      expectError(yield* post("search", { query: 5 }), 400, "INVALID_FORM_BODY")
      yield* guarded("search", {})
    }))

  it.effect("list-sessions shows the user's sessions without their tokens, and is audited", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* api.register()
      const login = yield* api.request("POST", "/auth/login", {
        body: { email: user.email, password: PASSWORD },
        headers: { "user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120.0 Safari/537.36" }
      })
      assert.strictEqual(login.status, 200, JSON.stringify(login.body))

      const listed = listOf(ok(yield* post("list-sessions", { user_id: user.userId })), "sessions")
      assert.strictEqual(listed.length, 2)
      for (const session of listed) {
        expect(session).toMatchObject({ client_ip_reverse: null, client_location: null })
        assert.match(String(session.session_id_hash), /^[A-Za-z0-9_-]{43}$/)
        assert.isFalse(Number.isNaN(Date.parse(String(session.created_at))))
        assert.isFalse(Number.isNaN(Date.parse(String(session.approx_last_used_at))))
        assert.isString(session.client_ip)
      }
      assert.include(listed.map((s) => s.client_os), "Windows")
      assert.notInclude(JSON.stringify(listed), user.token)

      const logs = ok(yield* api.request("POST", "/admin/audit-logs/search", {
        token: `Admin ${api.adminKey}`,
        body: { target_id: user.userId }
      }))
      expect(listOf(logs, "logs")).toEqual(expect.arrayContaining([
        expect.objectContaining({ action: "user.list_sessions", target_type: "user", metadata: { session_count: "2" } })
      ]))

      expectError(yield* post("list-sessions", { user_id: "1" }), 404, "UNKNOWN_USER")
      expectError(yield* post("list-sessions", { user_id: "abc" }), 400, "INVALID_FORM_BODY")
      // user:lookup is not enough: sessions take user:list:sessions.
      const staff = yield* api.register()
      yield* setAcls(staff.userId, ["admin:authenticate", "user:lookup"])
      expectError(yield* post("list-sessions", { user_id: user.userId }, staff.token), 403, "MISSING_PERMISSIONS")
      yield* guarded("list-sessions", { user_id: user.userId })
    }))

  it.effect("list-dm-channels lists the user's DM channels with their recipients, paged by id", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const alice = yield* api.register({ username: `d_${randomUUID().slice(0, 8)}` })
      const bob = yield* api.register({ username: `d_${randomUUID().slice(0, 8)}` })
      const carol = yield* api.register({ username: `d_${randomUUID().slice(0, 8)}` })
      const open = (to: string) =>
        Effect.map(api.request("POST", "/users/@me/channels", { token: alice.token, body: { recipient_id: to } }), (r) => field(ok(r), "id"))
      const withBob = yield* open(bob.userId)
      const withCarol = yield* open(carol.userId)

      const listed = listOf(ok(yield* post("list-dm-channels", { user_id: alice.userId })), "channels")
      assert.deepStrictEqual(listed.map((c) => c.channel_id), [withCarol, withBob])
      expect(listed[1]).toMatchObject({ channel_type: 1, is_open: true, last_message_id: null })
      expect(listed[1]?.recipient_ids).toEqual([alice.userId, bob.userId].sort())

      const older = ok(yield* post("list-dm-channels", { user_id: alice.userId, before: withCarol }))
      assert.deepStrictEqual(idsOf(older, "channels", "channel_id"), [withBob])
      const newer = ok(yield* post("list-dm-channels", { user_id: alice.userId, after: withBob }))
      assert.deepStrictEqual(idsOf(newer, "channels", "channel_id"), [withCarol])
      const one = ok(yield* post("list-dm-channels", { user_id: alice.userId, limit: 1 }))
      assert.deepStrictEqual(idsOf(one, "channels", "channel_id"), [withCarol])

      expectError(yield* post("list-dm-channels", { user_id: alice.userId, before: withCarol, after: withBob }), 400, "INVALID_FORM_BODY")
      expectError(yield* post("list-dm-channels", { user_id: alice.userId, limit: 0 }), 400, "INVALID_FORM_BODY")
      expectError(yield* post("list-dm-channels", { user_id: "1" }), 404, "UNKNOWN_USER")
      yield* guarded("list-dm-channels", { user_id: alice.userId })
    }))

  it.effect("list-guilds lists the guilds the user is in, with member counts", () =>
    Effect.gen(function*() {
      const { owner, member, guildId } = yield* guildOfTwo
      const second = yield* createGuild(member.token)

      const listed = listOf(ok(yield* post("list-guilds", { user_id: member.userId, with_counts: true })), "guilds")
      assert.deepStrictEqual(listed.map((g) => g.id), [second.guildId, guildId])
      expect(listed[1]).toMatchObject({ id: guildId, owner_id: owner.userId, member_count: 2, icon: null, banner: null })
      assert.isArray(listed[1]?.features)
      assert.isString(listed[1]?.name)
      const after = ok(yield* post("list-guilds", { user_id: member.userId, after: guildId }))
      assert.deepStrictEqual(idsOf(after, "guilds"), [second.guildId])
      const before = ok(yield* post("list-guilds", { user_id: member.userId, before: second.guildId, limit: 1 }))
      assert.deepStrictEqual(idsOf(before, "guilds"), [guildId])

      expectError(yield* post("list-guilds", { user_id: member.userId, with_counts: "yes" }), 400, "INVALID_FORM_BODY")
      expectError(yield* post("list-guilds", { user_id: "1" }), 404, "UNKNOWN_USER")
      yield* guarded("list-guilds", { user_id: member.userId })
    }))

  it.effect("list-webauthn-credentials lists the user's keys without their key material", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* api.register()
      assert.deepStrictEqual(ok(yield* post("list-webauthn-credentials", { user_id: user.userId })), [])

      yield* addSecurityKey(user.token, "Laptop")

      const listed = ok(yield* post("list-webauthn-credentials", { user_id: user.userId }))
      if (!Array.isArray(listed)) return assert.fail(`not a list: ${JSON.stringify(listed)}`)
      assert.strictEqual(listed.length, 1)
      const credential: unknown = listed[0]
      assert.deepStrictEqual(Object.keys(credential ?? {}).sort(), ["created_at", "id", "last_used_at", "name"])
      expect(credential).toMatchObject({ name: "Laptop", last_used_at: null })
      const own = yield* api.request("GET", "/users/@me/mfa/webauthn/credentials", { token: user.token })
      assert.deepStrictEqual(listed, own.body)

      expectError(yield* post("list-webauthn-credentials", {}), 400, "INVALID_FORM_BODY")
      expectError(yield* post("list-webauthn-credentials", { user_id: "1" }), 404, "UNKNOWN_USER")
      yield* guarded("list-webauthn-credentials", { user_id: user.userId })
    }))
})
