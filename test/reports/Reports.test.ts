import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { expectError, field, TestApi } from "../support/Api.ts"
import { TestMail } from "../support/Mail.ts"
import { queryAt } from "../support/Postgres.ts"
import { CHAT, guildWithChannel, memberWith, newChannel, sent } from "../messages/Fixtures.ts"
import { Permission } from "../../src/model/Permissions.ts"
import { REPORTS_PER_HOUR } from "../../src/reports/Http.ts"

/** The server believes X-Forwarded-For from the test, so each DSA case counts against an address of its own. */
const api = TestApi.layerWithOutside({ TRUSTED_PROXIES: "127.0.0.1, ::1" })
let nextAddress = 1
const freshAddress = () => ({ "x-forwarded-for": `198.51.100.${nextAddress++}` })
const newEmail = () => `r${randomUUID().slice(0, 8)}@example.com`

layer(api, { timeout: 180_000, excludeTestServices: true })("reports", (it) => {
  it.effect("a message report keeps the message and its neighbours; own messages, hidden ones and bad input are refused", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const reporter = yield* memberWith(guildId, CHAT)
      const before = yield* sent(owner.token, channelId, "before it")
      const bad = yield* sent(owner.token, channelId, "the offending words")
      const own = yield* sent(reporter.token, channelId, "mine")
      const report = (token: string | undefined, body: unknown) => t.request("POST", "/reports/message", { token, body })

      const ok = yield* report(reporter.token, { channel_id: channelId, message_id: bad, category: "harassment", additional_info: "rude" })
      assert.strictEqual(ok.status, 200, JSON.stringify(ok.body))
      expect(ok.body).toMatchObject({ status: "pending" })
      assert.match(field(ok.body, "reported_at"), /^\d{4}-\d\d-\d\dT/)
      const [row] = yield* queryAt(t.databaseUrl, "SELECT reported_user_id::text AS reported_user_id, message_context FROM reports WHERE id = $1", [
        field(ok.body, "report_id")
      ])
      expect(row).toMatchObject({ reported_user_id: owner.userId })
      const context = JSON.stringify(row?.message_context)
      for (const id of [before, bad, own]) assert.include(context, id)
      assert.include(context, "the offending words")

      expectError(yield* report(reporter.token, { channel_id: channelId, message_id: own, category: "spam" }), 400, "CANNOT_REPORT_OWN_MESSAGE")
      expectError(yield* report(reporter.token, { channel_id: channelId, message_id: "123456789", category: "spam" }), 404, "UNKNOWN_MESSAGE")
      expectError(yield* report(reporter.token, { channel_id: channelId, message_id: bad, category: "spam_account" }), 400, "INVALID_FORM_BODY")
      expectError(yield* report(reporter.token, { channel_id: "x", message_id: bad, category: "spam" }), 400, "INVALID_FORM_BODY")
      assert.strictEqual((yield* report(undefined, { channel_id: channelId, message_id: bad, category: "spam" })).status, 401)

      // A channel the reporter cannot see: its messages cannot be reported (nor learnt of).
      const hidden = yield* newChannel(owner.token, guildId, {
        name: "staff",
        permission_overwrites: [{ id: reporter.roleId, type: 0, deny: String(Permission.VIEW_CHANNEL) }]
      })
      const secret = yield* sent(owner.token, hidden, "secret")
      const refused = yield* report(reporter.token, { channel_id: hidden, message_id: secret, category: "spam" })
      assert.oneOf(refused.status, [403, 404], JSON.stringify(refused.body))
    }))

  it.effect("user and guild reports: yourself, your own guild and unknown ones are refused; REPORT_BANNED users cannot report", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const { owner, guildId } = yield* guildWithChannel
      const reporter = yield* t.register()
      // null: anonymous.
      const post = (path: string, body: unknown, token: string | null = reporter.token) =>
        t.request("POST", path, { token: token ?? undefined, body })

      const user = yield* post("/reports/user", { user_id: owner.userId, category: "impersonation", guild_id: guildId })
      assert.strictEqual(user.status, 200, JSON.stringify(user.body))
      expectError(yield* post("/reports/user", { user_id: reporter.userId, category: "harassment" }), 400, "CANNOT_REPORT_YOURSELF")
      expectError(yield* post("/reports/user", { user_id: "42", category: "harassment" }), 404, "UNKNOWN_USER")
      expectError(yield* post("/reports/user", { user_id: owner.userId, category: "raid_coordination" }), 400, "INVALID_FORM_BODY")
      assert.strictEqual((yield* post("/reports/user", { user_id: owner.userId, category: "harassment" }, null)).status, 401)

      const guild = yield* post("/reports/guild", { guild_id: guildId, category: "raid_coordination", additional_info: "they plan raids" })
      assert.strictEqual(guild.status, 200, JSON.stringify(guild.body))
      expectError(yield* post("/reports/guild", { guild_id: guildId, category: "spam" }, owner.token), 400, "CANNOT_REPORT_OWN_GUILD")
      expectError(yield* post("/reports/guild", { guild_id: "42", category: "spam" }), 404, "UNKNOWN_GUILD")
      expectError(yield* post("/reports/guild", { guild_id: guildId, category: "spam", additional_info: "x".repeat(1001) }), 400, "INVALID_FORM_BODY")
      assert.strictEqual((yield* post("/reports/guild", { guild_id: guildId, category: "spam" }, null)).status, 401)
      const [stored] = yield* queryAt(t.databaseUrl, "SELECT reported_guild_name, report_type FROM reports WHERE id = $1", [field(guild.body, "report_id")])
      expect(stored).toMatchObject({ reported_guild_name: "The Hall", report_type: 2 })

      const banned = yield* t.request("POST", "/admin/users/update-flags", {
        token: `Admin ${t.adminKey}`,
        body: { user_id: reporter.userId, add_flags: ["REPORT_BANNED"] }
      })
      assert.strictEqual(banned.status, 200, JSON.stringify(banned.body))
      expectError(yield* post("/reports/guild", { guild_id: guildId, category: "spam" }), 403, "REPORT_BANNED")
    }))

  it.effect("DSA: a mailed code buys a ticket, the ticket files one report; wrong codes, bad tickets and bad input are refused", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const mail = yield* TestMail
      const { guildId } = yield* guildWithChannel
      const target = yield* t.register()
      const email = newEmail()
      const post = (path: string, body: unknown) => t.request("POST", path, { body, headers: freshAddress() })

      const sentCode = yield* post("/reports/dsa/email/send", { email })
      assert.deepStrictEqual(sentCode.body, { ok: true })
      const letter = yield* mail.next(email, /verification code/i)
      const code = /([A-Z0-9]{4}-[A-Z0-9]{4})/.exec(letter.text)?.[1]
      assert.isDefined(code)
      expectError(yield* post("/reports/dsa/email/send", { email: "nope" }), 400, "INVALID_FORM_BODY")

      expectError(yield* post("/reports/dsa/email/verify", { email, code: "ZZZZ-ZZZZ" }), 400, "INVALID_DSA_VERIFICATION_CODE")
      expectError(yield* post("/reports/dsa/email/verify", { email, code: "zzzz" }), 400, "INVALID_FORM_BODY")
      const verified = yield* post("/reports/dsa/email/verify", { email, code })
      assert.strictEqual(verified.status, 200, JSON.stringify(verified.body))
      const ticket = field(verified.body, "ticket")
      // A code works once.
      expectError(yield* post("/reports/dsa/email/verify", { email, code }), 400, "INVALID_DSA_VERIFICATION_CODE")

      const base = { reporter_full_legal_name: "Erika Mustermann", reporter_country_of_residence: "DE" }
      expectError(yield* post("/reports/dsa", { ...base, ticket: "forged", report_type: "guild", category: "spam", guild_id: guildId }), 400, "INVALID_DSA_TICKET")
      expectError(yield* post("/reports/dsa", { ...base, reporter_country_of_residence: "US", ticket, report_type: "guild", category: "spam", guild_id: guildId }), 400, "INVALID_FORM_BODY")
      expectError(yield* post("/reports/dsa", { ...base, ticket, report_type: "user", category: "harassment", user_id: "42" }), 404, "UNKNOWN_USER")

      const filed = yield* post("/reports/dsa", { ...base, ticket, report_type: "user", category: "harassment", user_id: target.userId })
      assert.strictEqual(filed.status, 200, JSON.stringify(filed.body))
      expect(filed.body).toMatchObject({ status: "pending" })
      const [row] = yield* queryAt(t.databaseUrl, "SELECT reporter_id, reporter_email, reporter_full_legal_name, reporter_country_of_residence FROM reports WHERE id = $1", [
        field(filed.body, "report_id")
      ])
      assert.deepStrictEqual(row, { reporter_id: null, reporter_email: email, reporter_full_legal_name: "Erika Mustermann", reporter_country_of_residence: "DE" })
      // Guessing ends the code: after five wrong ones even the right one is refused.
      const guessed = newEmail()
      yield* post("/reports/dsa/email/send", { email: guessed })
      const guessedCode = /([A-Z0-9]{4}-[A-Z0-9]{4})/.exec((yield* mail.next(guessed, /verification code/i)).text)?.[1]
      for (let i = 0; i < 5; i++) expectError(yield* post("/reports/dsa/email/verify", { email: guessed, code: "ZZZZ-ZZZ9" }), 400, "INVALID_DSA_VERIFICATION_CODE")
      expectError(yield* post("/reports/dsa/email/verify", { email: guessed, code: guessedCode }), 400, "INVALID_DSA_VERIFICATION_CODE")
      // The ticket was spent by that report.
      expectError(yield* post("/reports/dsa", { ...base, ticket, report_type: "guild", category: "spam", guild_id: guildId }), 400, "INVALID_DSA_TICKET")
    }))

  it.effect("a reporter files at most REPORTS_PER_HOUR reports an hour", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const reporter = yield* t.register()
      const target = yield* t.register()
      const file = t.request("POST", "/reports/user", { token: reporter.token, body: { user_id: target.userId, category: "spam_account" } })
      for (let i = 0; i < REPORTS_PER_HOUR; i++) assert.strictEqual((yield* file).status, 200)
      const refused = yield* file
      expectError(refused, 429, "RATE_LIMITED")
      expect(refused.body).toMatchObject({ global: false, retry_after: 3600 })
    }))
})
