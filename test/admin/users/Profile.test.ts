import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, field, TestApi } from "../../support/Api.ts"
import { setAcls } from "../../support/Acls.ts"
import { TestMail } from "../../support/Mail.ts"
import { newPhone, textedCode } from "../../support/SmsProvider.ts"
import { PASSWORD } from "../../mfa/Support.ts"
import { dataOf, identified, nextMatching } from "../../gateway/Client.ts"
import { guildOfTwo } from "../../invites/Fixtures.ts"

const admin = (key: string) => `Admin ${key}`

/** A POST of an admin route with the test's `*` key. */
const post = (path: string, body: unknown) =>
  Effect.flatMap(TestApi, (api) => api.request("POST", path, { token: admin(api.adminKey), body }))

/** The admin user view of a `{ user }` answer. */
const userOf = (body: unknown): Record<string, unknown> => {
  if (typeof body !== "object" || body === null || !("user" in body)) throw new Error(`no user in ${JSON.stringify(body)}`)
  const user = body.user
  if (typeof user !== "object" || user === null) throw new Error(`no user in ${JSON.stringify(body)}`)
  return Object.fromEntries(Object.entries(user))
}

const changed = (path: string, body: unknown) =>
  Effect.gen(function*() {
    const reply = yield* post(path, body)
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return userOf(reply.body)
  })

const auditActions = (targetId: string) =>
  Effect.gen(function*() {
    const logs = yield* post("/admin/audit-logs/search", { target_id: targetId, limit: 100 })
    assert.strictEqual(logs.status, 200)
    return JSON.stringify(logs.body)
  })

const ROUTES: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["/admin/users/change-username", { username: "someone_new" }],
  ["/admin/users/change-email", { email: "x@example.com" }],
  ["/admin/users/change-dob", { date_of_birth: "1990-01-01" }],
  ["/admin/users/clear-fields", { fields: ["bio"] }],
  ["/admin/users/update-flags", { add_flags: ["STAFF"] }],
  ["/admin/users/update-suspicious-activity-flags", { flags: 1 }],
  ["/admin/users/set-traits", { traits: ["x"] }],
  ["/admin/users/set-bot-status", { bot: true }],
  ["/admin/users/set-system-status", { system: false }],
  ["/admin/users/verify-email", {}],
  ["/admin/users/resend-verification-email", {}],
  ["/admin/users/send-password-reset", {}],
  ["/admin/users/unlink-phone", {}]
]

layer(TestApi.layerWithOutside(), { timeout: 180_000, excludeTestServices: true })("admin: a user's identity and profile", (it) => {
  it.effect("change-username reaches the user (USER_UPDATE), their guilds' member lists and guild-mates (GUILD_MEMBER_UPDATE)", () =>
    Effect.gen(function*() {
      const { api, owner, member, guildId } = yield* guildOfTwo
      const memberSession = yield* identified(member.token)
      const ownerSession = yield* identified(owner.token)
      const username = `renamed_${member.userId.slice(-6)}`

      const user = yield* changed("/admin/users/change-username", { user_id: member.userId, username, discriminator: 4242 })
      expect(user).toMatchObject({ id: member.userId, username, discriminator: 4242 })

      const own = yield* nextMatching(memberSession.client, "USER_UPDATE", (d) => JSON.stringify(d).includes(username))
      expect(dataOf(own)).toMatchObject({ id: member.userId, username, discriminator: "4242" })
      const seen = yield* nextMatching(ownerSession.client, "GUILD_MEMBER_UPDATE", (d) => JSON.stringify(d).includes(username))
      expect(dataOf(seen)).toMatchObject({ guild_id: guildId, user: { id: member.userId, username, discriminator: "4242" } })
      const listed = yield* api.request("GET", `/guilds/${guildId}/members/${member.userId}`, { token: owner.token })
      expect(listed.body).toMatchObject({ user: { id: member.userId, username, discriminator: "4242" } })

      // Without a discriminator the user keeps theirs when the new name has it free.
      const again = yield* changed("/admin/users/change-username", { user_id: member.userId, username: `${username}_b` })
      assert.strictEqual(again.discriminator, 4242)
      // Somebody else's tag is taken.
      const taken = yield* post("/admin/users/change-username", { user_id: owner.userId, username: `${username}_b`, discriminator: 4242 })
      expect(taken.body).toMatchObject({ errors: [{ path: "username", code: "TAG_ALREADY_TAKEN" }] })
      assert.strictEqual(taken.status, 400)
      const bad = yield* post("/admin/users/change-username", { user_id: member.userId, username: "a b" })
      expectError(bad, 400, "INVALID_FORM_BODY")
      const badDiscriminator = yield* post("/admin/users/change-username", { user_id: member.userId, username, discriminator: 10_000 })
      expectError(badDiscriminator, 400, "INVALID_FORM_BODY")
      const nobody = yield* post("/admin/users/change-username", { user_id: "1", username: "nobody_here" })
      expectError(nobody, 404, "UNKNOWN_USER")
      const audit = yield* auditActions(member.userId)
      assert.include(audit, "user.change_username")
      assert.include(audit, username)
    }))

  it.effect("a user's own PATCH /users/@me of their display name reaches their guilds too", () =>
    Effect.gen(function*() {
      const { api, owner, member, guildId } = yield* guildOfTwo
      const ownerSession = yield* identified(owner.token)
      const patched = yield* api.request("PATCH", "/users/@me", { token: member.token, body: { global_name: "Shown Name" } })
      assert.strictEqual(patched.status, 200, JSON.stringify(patched.body))
      const seen = yield* nextMatching(ownerSession.client, "GUILD_MEMBER_UPDATE", (d) => JSON.stringify(d).includes("Shown Name"))
      expect(dataOf(seen)).toMatchObject({ guild_id: guildId, user: { id: member.userId, global_name: "Shown Name" } })
      const listed = yield* api.request("GET", `/guilds/${guildId}/members?limit=100`, { token: owner.token })
      expect(listed.body).toEqual(expect.arrayContaining([expect.objectContaining({ user: expect.objectContaining({ global_name: "Shown Name" }) })]))
    }))

  it.effect("update-flags adds and removes UserFlags by name or value; badges reach the member list; unknown ones are refused", () =>
    Effect.gen(function*() {
      const { api, owner, member, guildId } = yield* guildOfTwo
      const session = yield* identified(member.token)
      const added = yield* changed("/admin/users/update-flags", {
        user_id: member.userId,
        add_flags: ["STAFF", "8589934592", 4]
      })
      assert.strictEqual(added.flags, String(1n | 4n | (1n << 33n)))
      // Only the badges show on the partial user.
      const update = yield* nextMatching(session.client, "USER_UPDATE", (d) => JSON.stringify(d).includes("\"flags\":5"))
      expect(dataOf(update)).toMatchObject({ id: member.userId, flags: 5 })
      const listed = yield* api.request("GET", `/guilds/${guildId}/members/${member.userId}`, { token: owner.token })
      expect(listed.body).toMatchObject({ user: { flags: 5 } })

      const removed = yield* changed("/admin/users/update-flags", { user_id: member.userId, remove_flags: ["PARTNER", "HIGH_GLOBAL_RATE_LIMIT"] })
      assert.strictEqual(removed.flags, "1")
      const unknownName = yield* post("/admin/users/update-flags", { user_id: member.userId, add_flags: ["ROOT"] })
      expect(unknownName.body).toMatchObject({ errors: [{ path: "add_flags.0", code: "UNKNOWN_USER_FLAG" }] })
      assert.strictEqual(unknownName.status, 400)
      const unknownValue = yield* post("/admin/users/update-flags", { user_id: member.userId, remove_flags: ["STAFF", "16"] })
      expect(unknownValue.body).toMatchObject({ errors: [{ path: "remove_flags.1", code: "UNKNOWN_USER_FLAG" }] })
      const malformed = yield* post("/admin/users/update-flags", { user_id: member.userId, add_flags: "STAFF" })
      expectError(malformed, 400, "INVALID_FORM_BODY")
      assert.include(yield* auditActions(member.userId), "user.update_flags")
    }))

  it.effect("bulk update-user-flags: each user alone; an unknown id fails without the others", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const a = yield* api.register()
      const b = yield* api.register()
      const reply = yield* post("/admin/bulk/update-user-flags", { user_ids: [a.userId, "1", b.userId], add_flags: ["BUG_HUNTER"] })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      expect(reply.body).toEqual({ successful: [a.userId, b.userId], failed: [{ id: "1", error: "UNKNOWN_USER" }] })
      expect((yield* api.request("GET", "/users/@me", { token: b.token })).body).toMatchObject({ flags: 8 })
      const unknownFlag = yield* post("/admin/bulk/update-user-flags", { user_ids: [a.userId], add_flags: ["NOPE"] })
      expect(unknownFlag.body).toMatchObject({ errors: [{ code: "UNKNOWN_USER_FLAG" }] })
      const empty = yield* post("/admin/bulk/update-user-flags", { user_ids: [] })
      expectError(empty, 400, "INVALID_FORM_BODY")
      const logs = yield* post("/admin/audit-logs/search", { query: "bulk.update_user_flags" })
      assert.include(JSON.stringify(logs.body), "bulk.update_user_flags")
    }))

  it.effect("change-email unverifies the new address; a taken one is refused; verify-email marks it verified", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const other = yield* api.register()
      const session = yield* identified(me.token)
      const email = `moved-${me.userId}@example.com`
      const user = yield* changed("/admin/users/change-email", { user_id: me.userId, email })
      expect(user).toMatchObject({ email, email_verified: false })
      const update = yield* nextMatching(session.client, "USER_UPDATE", (d) => JSON.stringify(d).includes(email))
      expect(dataOf(update)).toMatchObject({ email, verified: false })

      const taken = yield* post("/admin/users/change-email", { user_id: me.userId, email: other.email.toUpperCase() })
      expect(taken.body).toMatchObject({ errors: [{ path: "email", code: "EMAIL_ALREADY_IN_USE" }] })
      const malformed = yield* post("/admin/users/change-email", { user_id: me.userId, email: "not an address" })
      expectError(malformed, 400, "INVALID_FORM_BODY")

      const verified = yield* changed("/admin/users/verify-email", { user_id: me.userId })
      expect(verified).toMatchObject({ email, email_verified: true })
      expect((yield* api.request("GET", "/users/@me", { token: me.token })).body).toMatchObject({ email, verified: true })
      expectError(yield* post("/admin/users/verify-email", { user_id: "x" }), 400, "INVALID_FORM_BODY")
      const audit = yield* auditActions(me.userId)
      assert.include(audit, "user.change_email")
      assert.include(audit, "user.verify_email")
    }))

  it.effect("resend-verification-email and send-password-reset mail the user (204)", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const mail = yield* TestMail
      const me = yield* api.register()
      yield* mail.next(me.email, /Verify/)
      const resent = yield* post("/admin/users/resend-verification-email", { user_id: me.userId })
      assert.strictEqual(resent.status, 204, JSON.stringify(resent.body))
      yield* mail.next(me.email, /Verify/)
      const reset = yield* post("/admin/users/send-password-reset", { user_id: me.userId })
      assert.strictEqual(reset.status, 204, JSON.stringify(reset.body))
      const resetMail = yield* mail.next(me.email, /reset/i)
      assert.include(resetMail.text, "token=")

      yield* changed("/admin/users/verify-email", { user_id: me.userId })
      const already = yield* post("/admin/users/resend-verification-email", { user_id: me.userId })
      expect(already.body).toMatchObject({ errors: [{ code: "ACCOUNT_ALREADY_VERIFIED" }] })
      expectError(yield* post("/admin/users/send-password-reset", { user_id: "1" }), 404, "UNKNOWN_USER")
      expectError(yield* post("/admin/users/send-password-reset", {}), 400, "INVALID_FORM_BODY")
      const audit = yield* auditActions(me.userId)
      assert.include(audit, "user.resend_verification_email")
      assert.include(audit, "user.send_password_reset")
    }))

  it.effect("change-dob takes a real past date; clear-fields clears profile fields; set-traits replaces the traits", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const dob = yield* changed("/admin/users/change-dob", { user_id: me.userId, date_of_birth: "1991-02-28" })
      assert.strictEqual(dob.date_of_birth, "1991-02-28")
      for (const date_of_birth of ["1991-02-30", "2999-01-01", "1991-2-3", "yesterday"]) {
        const bad = yield* post("/admin/users/change-dob", { user_id: me.userId, date_of_birth })
        expectError(bad, 400, "INVALID_FORM_BODY")
      }

      const patched = yield* api.request("PATCH", "/users/@me", {
        token: me.token,
        body: { bio: "about me", pronouns: "they/them", global_name: "Shown" }
      })
      assert.strictEqual(patched.status, 200, JSON.stringify(patched.body))
      const cleared = yield* changed("/admin/users/clear-fields", { user_id: me.userId, fields: ["bio", "global_name"] })
      expect(cleared).toMatchObject({ bio: null, global_name: null, pronouns: "they/them" })
      expect((yield* api.request("GET", "/users/@me", { token: me.token })).body).toMatchObject({ bio: null, global_name: null })
      expectError(yield* post("/admin/users/clear-fields", { user_id: me.userId, fields: ["email"] }), 400, "INVALID_FORM_BODY")
      const none = yield* changed("/admin/users/clear-fields", { user_id: me.userId, fields: [] })
      assert.strictEqual(none.pronouns, "they/them")

      const traits = yield* changed("/admin/users/set-traits", { user_id: me.userId, traits: ["beta", "beta", "tester"] })
      assert.deepStrictEqual(traits.traits, ["beta", "tester"])
      expect((yield* api.request("GET", "/users/@me", { token: me.token })).body).toMatchObject({ traits: ["beta", "tester"] })
      expectError(yield* post("/admin/users/set-traits", { user_id: me.userId, traits: [""] }), 400, "INVALID_FORM_BODY")
      const audit = yield* auditActions(me.userId)
      for (const action of ["user.change_dob", "user.clear_fields", "user.set_traits"]) assert.include(audit, action)
    }))

  it.effect("update-suspicious-activity-flags takes SuspiciousActivityFlags bits only", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const set = yield* changed("/admin/users/update-suspicious-activity-flags", { user_id: me.userId, flags: 1 | 4 | 128 })
      assert.strictEqual(set.suspicious_activity_flags, 133)
      const unknownBit = yield* post("/admin/users/update-suspicious-activity-flags", { user_id: me.userId, flags: 256 })
      expect(unknownBit.body).toMatchObject({ errors: [{ path: "flags", code: "UNKNOWN_SUSPICIOUS_FLAG" }] })
      assert.strictEqual(unknownBit.status, 400)
      expectError(yield* post("/admin/users/update-suspicious-activity-flags", { user_id: me.userId, flags: "1" }), 400, "INVALID_FORM_BODY")
      const cleared = yield* changed("/admin/users/update-suspicious-activity-flags", { user_id: me.userId, flags: 0 })
      assert.strictEqual(cleared.suspicious_activity_flags, 0)
      assert.include(yield* auditActions(me.userId), "user.update_suspicious_activity_flags")
    }))

  it.effect("set-bot-status and set-system-status: only a bot is a system account; both show on the user and in guilds", () =>
    Effect.gen(function*() {
      const { api, owner, member, guildId } = yield* guildOfTwo
      const notBot = yield* post("/admin/users/set-system-status", { user_id: member.userId, system: true })
      expect(notBot.body).toMatchObject({ errors: [{ path: "system" }] })
      assert.strictEqual(notBot.status, 400)
      expect(yield* changed("/admin/users/set-bot-status", { user_id: member.userId, bot: true })).toMatchObject({ bot: true, system: false })
      expect(yield* changed("/admin/users/set-system-status", { user_id: member.userId, system: true })).toMatchObject({ bot: true, system: true })
      const listed = yield* api.request("GET", `/guilds/${guildId}/members/${member.userId}`, { token: owner.token })
      expect(listed.body).toMatchObject({ user: { bot: true, system: true } })
      // No longer a bot, no longer a system account.
      expect(yield* changed("/admin/users/set-bot-status", { user_id: member.userId, bot: false })).toMatchObject({ bot: false, system: false })
      const after = yield* api.request("GET", `/guilds/${guildId}/members/${member.userId}`, { token: owner.token })
      expect(after.body).toMatchObject({ user: { bot: false } })
      assert.notProperty(userOf(after.body), "system")
      expectError(yield* post("/admin/users/set-bot-status", { user_id: member.userId, bot: "yes" }), 400, "INVALID_FORM_BODY")
      const audit = yield* auditActions(member.userId)
      assert.include(audit, "user.set_bot_status")
      assert.include(audit, "user.set_system_status")
    }))

  it.effect("unlink-phone removes the number and its verification", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const phone = newPhone()
      const sent = yield* api.request("POST", "/users/@me/phone/send-verification", { token: me.token, body: { phone } })
      assert.strictEqual(sent.status, 200, JSON.stringify(sent.body))
      const verified = yield* api.request("POST", "/users/@me/phone/verify", { token: me.token, body: { phone, code: yield* textedCode(phone) } })
      const phoneToken = field(verified.body, "phone_token")
      const added = yield* api.request("POST", "/users/@me/phone", { token: me.token, body: { phone_token: phoneToken, password: PASSWORD } })
      assert.strictEqual(added.status, 204, JSON.stringify(added.body))
      expect((yield* api.request("GET", "/users/@me", { token: me.token })).body).toMatchObject({ phone, has_verified_phone: true })

      const user = yield* changed("/admin/users/unlink-phone", { user_id: me.userId })
      assert.isNull(user.phone)
      expect((yield* api.request("GET", "/users/@me", { token: me.token })).body).toMatchObject({ phone: null, has_verified_phone: false })
      assert.include(yield* auditActions(me.userId), "user.unlink_phone")
      expectError(yield* post("/admin/users/unlink-phone", { user_id: "1" }), 404, "UNKNOWN_USER")
    }))

  it.effect("every route needs its ACL (403) and a credential (401)", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const target = yield* api.register()
      const operator = yield* api.register()
      yield* setAcls(operator.userId, ["admin:authenticate", "user:lookup"])
      for (const [path, body] of [...ROUTES, ["/admin/bulk/update-user-flags", { add_flags: ["STAFF"] }] as const]) {
        const payload = path.startsWith("/admin/bulk") ? { ...body, user_ids: [target.userId] } : { ...body, user_id: target.userId }
        const forbidden = yield* api.request("POST", path, { token: operator.token, body: payload })
        expectError(forbidden, 403, "MISSING_PERMISSIONS")
        const anonymous = yield* api.request("POST", path, { body: payload })
        assert.strictEqual(anonymous.status, 401, path)
      }
      // The route's own ACL is enough.
      yield* setAcls(operator.userId, ["admin:authenticate", "user:update:traits"])
      const allowed = yield* api.request("POST", "/admin/users/set-traits", { token: operator.token, body: { user_id: target.userId, traits: [] } })
      assert.strictEqual(allowed.status, 200, JSON.stringify(allowed.body))
    }))
})
