import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { setAcls } from "../../support/Acls.ts"
import { expectError, field, TestApi } from "../../support/Api.ts"
import { TestMail } from "../../support/Mail.ts"
import { newPhone, textedCode } from "../../support/SmsProvider.ts"

const PASSWORD = "correct horse battery"

interface Entry {
  readonly event_id: string
  readonly field: string
  readonly old_value: string | null
  readonly new_value: string | null
  readonly reason: string
  readonly actor_user_id: string | null
  readonly event_at: string
}
interface Page {
  readonly entries: ReadonlyArray<Entry>
  readonly next_page_token: string | null
}

const isPage = (body: unknown): body is Page =>
  typeof body === "object" && body !== null && "entries" in body && Array.isArray(body.entries) && "next_page_token" in body

layer(TestApi.layerWithOutside(), { timeout: 120_000, excludeTestServices: true })("POST /admin/users/change-log", (it) => {
  const changeLog = (body: unknown, token?: string) =>
    Effect.gen(function*() {
      const api = yield* TestApi
      return yield* api.request("POST", "/admin/users/change-log", { token: token ?? `Admin ${api.adminKey}`, body })
    })
  const page = (body: unknown) =>
    Effect.gen(function*() {
      const reply = yield* changeLog(body)
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      if (!isPage(reply.body)) return assert.fail(`not a change-log page: ${JSON.stringify(reply.body)}`)
      return reply.body
    })
  const patch = (token: string, body: unknown) =>
    Effect.flatMap(TestApi, (api) => api.request("PATCH", "/users/@me", { token, body }))

  it.effect("the user's own tag and display name changes are logged, newest first, in pages", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const before = yield* api.request("GET", "/users/@me", { token: me.token })
      const oldTag = `${field(before.body, "username")}#${field(before.body, "discriminator")}`
      assert.deepStrictEqual((yield* page({ user_id: me.userId })).entries, [])

      const first = `c_${randomUUID().slice(0, 8)}`
      const renamed = yield* patch(me.token, { username: first, password: PASSWORD })
      assert.strictEqual(renamed.status, 200, JSON.stringify(renamed.body))
      const discriminator = field(renamed.body, "discriminator")
      assert.strictEqual((yield* patch(me.token, { global_name: "Ada" })).status, 200)
      // Fields outside the log change nothing in it.
      assert.strictEqual((yield* patch(me.token, { bio: "engines" })).status, 200)
      const second = `${first}x`
      assert.strictEqual((yield* patch(me.token, { username: second, password: PASSWORD })).status, 200)

      const all = yield* page({ user_id: me.userId })
      expect(all.entries.map(({ field, old_value, new_value }) => ({ field, old_value, new_value }))).toEqual([
        { field: "fluxer_tag", old_value: `${first}#${discriminator}`, new_value: `${second}#${discriminator}` },
        { field: "global_name", old_value: null, new_value: "Ada" },
        { field: "fluxer_tag", old_value: oldTag, new_value: `${first}#${discriminator}` }
      ])
      for (const entry of all.entries) {
        expect(entry).toMatchObject({ reason: "user_requested", actor_user_id: me.userId })
        assert.isFalse(Number.isNaN(Date.parse(entry.event_at)))
      }
      assert.isNull(all.next_page_token)

      const firstPage = yield* page({ user_id: me.userId, limit: 2 })
      assert.deepStrictEqual(firstPage.entries, all.entries.slice(0, 2))
      assert.strictEqual(firstPage.next_page_token, all.entries[1]?.event_id)
      const rest = yield* page({ user_id: me.userId, limit: 2, page_token: firstPage.next_page_token })
      assert.deepStrictEqual(rest.entries, all.entries.slice(2))
      assert.isNull(rest.next_page_token)
    }))

  it.effect("a phone added and removed through its own flow is logged", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const phone = newPhone()
      const post = (path: string, body: unknown) => api.request("POST", `/users/@me/phone${path}`, { token: me.token, body })
      assert.strictEqual((yield* post("/send-verification", { phone })).status, 200)
      const verified = yield* post("/verify", { phone, code: yield* textedCode(phone) })
      const added = yield* post("", { phone_token: field(verified.body, "phone_token"), password: PASSWORD })
      assert.strictEqual(added.status, 204, JSON.stringify(added.body))
      // Operators find the account by its number.
      const admin = `Admin ${api.adminKey}`
      const found = yield* api.request("POST", "/admin/users/lookup", { token: admin, body: { query: phone } })
      expect(found.body).toMatchObject({ users: [{ id: me.userId, phone }] })
      const searched = yield* api.request("POST", "/admin/users/search", { token: admin, body: { query: phone } })
      expect(searched.body).toMatchObject({ users: [{ id: me.userId }], total: 1 })
      const removed = yield* api.request("DELETE", "/users/@me/phone", { token: me.token, body: { password: PASSWORD } })
      assert.strictEqual(removed.status, 204, JSON.stringify(removed.body))

      const log = yield* page({ user_id: me.userId })
      expect(log.entries).toMatchObject([
        { field: "phone", old_value: phone, new_value: null, reason: "user_requested", actor_user_id: me.userId },
        { field: "phone", old_value: null, new_value: phone, reason: "user_requested", actor_user_id: me.userId }
      ])
    }))

  it.effect("an email changed through its own flow is logged", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const mail = yield* TestMail
      const me = yield* api.register()
      const newEmail = `n${randomUUID().slice(0, 8)}@example.org`
      const post = (path: string, body: unknown) => api.request("POST", `/users/@me/email-change${path}`, { token: me.token, body })
      const started = yield* post("/start", { password: PASSWORD })
      const ticket = field(started.body, "ticket")
      const proof = field(started.body, "original_proof")
      assert.strictEqual((yield* post("/request-new", { ticket, new_email: newEmail, original_proof: proof })).status, 200)
      const sent = yield* mail.next(newEmail, /Confirm your new email address/)
      const code = /\b([A-Z2-9]{4}-[A-Z2-9]{4})\b/.exec(sent.text)?.[1] ?? ""
      const done = yield* post("/verify-new", { ticket, code, original_proof: proof })
      assert.strictEqual(done.status, 200, JSON.stringify(done.body))

      const log = yield* page({ user_id: me.userId })
      expect(log.entries).toMatchObject([
        { field: "email", old_value: me.email, new_value: newEmail, reason: "user_requested", actor_user_id: me.userId }
      ])
    }))

  it.effect("bad input is a 400, an unknown user a 404; it takes user:lookup and an operator", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* api.register()
      expectError(yield* changeLog({}), 400, "INVALID_FORM_BODY")
      expectError(yield* changeLog({ user_id: user.userId, limit: 0 }), 400, "INVALID_FORM_BODY")
      expectError(yield* changeLog({ user_id: user.userId, limit: 201 }), 400, "INVALID_FORM_BODY")
      expectError(yield* changeLog({ user_id: user.userId, page_token: "x" }), 400, "INVALID_FORM_BODY")
      expectError(yield* changeLog({ user_id: "1" }), 404, "UNKNOWN_USER")

      const staff = yield* api.register()
      yield* setAcls(staff.userId, ["admin:authenticate", "gateway:memory_stats"])
      expectError(yield* changeLog({ user_id: user.userId }, staff.token), 403, "MISSING_PERMISSIONS")
      const anonymous = yield* api.request("POST", "/admin/users/change-log", { body: { user_id: user.userId } })
      assert.strictEqual(anonymous.status, 401)
      yield* setAcls(staff.userId, ["admin:authenticate", "user:lookup"])
      assert.strictEqual((yield* changeLog({ user_id: user.userId }, staff.token)).status, 200)
    }))
})
