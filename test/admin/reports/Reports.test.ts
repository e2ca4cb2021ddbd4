import { assert, expect, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { expectError, field, type Reply, TestApi } from "../../support/Api.ts"
import { setAcls } from "../../support/Acls.ts"
import { FakeAuthority } from "../../support/FakeAuthority.ts"
import { TestMail } from "../../support/Mail.ts"
import { queryAt } from "../../support/Postgres.ts"
import { CHAT, guildWithChannel, memberWith, sent } from "../../messages/Fixtures.ts"
import { openDm, user } from "../../dms/Fixtures.ts"

/** The shapes these tests read, decoded rather than assumed. */
const Reports = Schema.Struct({ reports: Schema.Array(Schema.Struct({ report_id: Schema.String })) })
const ReportList = Schema.decodeUnknownSync(Reports)
const ReportPage = Schema.decodeUnknownSync(Schema.Struct({ ...Reports.fields, total: Schema.Number }))
const Hold = Schema.decodeUnknownSync(Schema.Struct({ held: Schema.Boolean, message_ids: Schema.Array(Schema.String) }))
const Status = Schema.decodeUnknownSync(Schema.Record(Schema.String, Schema.Unknown))
const MessageIds = Schema.decodeUnknownSync(Schema.Array(Schema.Struct({ id: Schema.String })))

/** The API sends reports to a fake authority on a local port, and retries failures every second; self-deletion starts at once. */
const api = Layer.unwrap(Effect.map(FakeAuthority, (fake) =>
  TestApi.layerWithOutside({
    AUTHORITY_REPORT_URL: fake.url,
    AUTHORITY_RETRY_BASE_SECONDS: "1",
    AUTHORITY_SWEEP_SECONDS: "1",
    MESSAGE_DELETION_SWEEP_SECONDS: "1",
    MESSAGE_DELETION_DELAY_SECONDS: "1"
  }))).pipe(
  Layer.provideMerge(FakeAuthority.layer)
)

const admin = (t: TestApi["Service"]) => `Admin ${t.adminKey}`
const asAdmin = (method: string, path: string, body?: unknown) =>
  Effect.flatMap(TestApi, (t) => t.request(method, path, { token: admin(t), body }))

const ok = (reply: Reply, status = 200) => {
  assert.strictEqual(reply.status, status, JSON.stringify(reply.body))
  return reply.body
}

/** A guild where `reporter` reports a message `author` sent (after an earlier one of the owner's): all of it. */
const reportedMessage = (content = "something awful") =>
  Effect.gen(function*() {
    const t = yield* TestApi
    const { owner, guildId, channelId } = yield* guildWithChannel
    const author = yield* memberWith(guildId, CHAT)
    const reporter = yield* memberWith(guildId, CHAT)
    const earlier = yield* sent(owner.token, channelId, "an earlier message")
    const messageId = yield* sent(author.token, channelId, content)
    const reply = yield* t.request("POST", "/reports/message", {
      token: reporter.token,
      body: { channel_id: channelId, message_id: messageId, category: "harassment", additional_info: "please look" }
    })
    return { owner, guildId, channelId, author, reporter, earlier, messageId, reportId: field(ok(reply), "report_id") }
  })

const waitFor = <A, R>(check: Effect.Effect<A, never, R>, done: (a: A) => boolean, what: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 100; i++) {
      const value = yield* check
      if (done(value)) return value
      yield* Effect.sleep("100 millis")
    }
    return assert.fail(`timed out waiting for ${what}`)
  })

layer(api, { timeout: 180_000, excludeTestServices: true })("admin: reports", (it) => {
  it.effect("every route: served to an operator, 400 on bad input, 403 without its ACL, 401 anonymous", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const { reportId } = yield* reportedMessage()
      const other = yield* t.register()
      // Reaches /admin, but holds none of these routes' ACLs.
      yield* setAcls(other.userId, ["admin:authenticate", "user:lookup"])
      const base = `/admin/reports/${reportId}`
      const cases: ReadonlyArray<{ method: string; path: string; body?: unknown; bad: { path: string; body?: unknown } }> = [
        { method: "GET", path: base, bad: { path: "/admin/reports/abc" } },
        { method: "POST", path: "/admin/reports/list", body: { status: 0, limit: 5 }, bad: { path: "/admin/reports/list", body: { limit: 0 } } },
        { method: "POST", path: "/admin/reports/search", body: { query: "awful" }, bad: { path: "/admin/reports/search", body: { status: 7 } } },
        { method: "GET", path: `${base}/legal-hold`, bad: { path: "/admin/reports/x/legal-hold" } },
        { method: "POST", path: `${base}/legal-hold`, body: {}, bad: { path: `${base}/legal-hold`, body: { held: "yes" } } },
        { method: "GET", path: `${base}/authority-status`, bad: { path: "/admin/reports/-1/authority-status" } },
        { method: "POST", path: `${base}/authority-submit`, bad: { path: "/admin/reports/abc/authority-submit" } },
        { method: "POST", path: "/admin/reports/resolve", body: { report_id: reportId }, bad: { path: "/admin/reports/resolve", body: { report_id: "x" } } }
      ]
      for (const c of cases) {
        expectError(yield* t.request(c.method, c.path, { token: other.token, body: c.body }), 403, "MISSING_PERMISSIONS")
        assert.strictEqual((yield* t.request(c.method, c.path, { body: c.body })).status, 401, c.path)
        ok(yield* asAdmin(c.method, c.path, c.body))
        expectError(yield* asAdmin(c.method, c.bad.path, c.bad.body), 400, "INVALID_FORM_BODY")
      }
      expectError(yield* asAdmin("GET", "/admin/reports/1"), 404, "UNKNOWN_REPORT")
      // Given report:view, a user reads reports but still cannot resolve them.
      yield* setAcls(other.userId, ["admin:authenticate", "report:view"])
      ok(yield* t.request("GET", base, { token: other.token }))
      expectError(yield* t.request("POST", "/admin/reports/resolve", { token: other.token, body: { report_id: reportId } }), 403, "MISSING_PERMISSIONS")
    }))

  it.effect("end to end: the author deletes the reported message, staff still read it, resolve, and the reporter is told", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const mail = yield* TestMail
      const r = yield* reportedMessage("the evidence itself")
      const deleted = yield* t.request("DELETE", `/channels/${r.channelId}/messages/${r.messageId}`, { token: r.author.token })
      ok(deleted, 204)
      expectError(yield* t.request("GET", `/channels/${r.channelId}/messages/${r.messageId}`, { token: r.reporter.token }), 404, "UNKNOWN_MESSAGE")

      const report = ok(yield* asAdmin("GET", `/admin/reports/${r.reportId}`))
      expect(report).toMatchObject({
        report_id: r.reportId,
        report_type: 0,
        status: 0,
        category: "harassment",
        additional_info: "please look",
        reporter_id: r.reporter.userId,
        reported_user_id: r.author.userId,
        reported_message_id: r.messageId,
        reported_channel_id: r.channelId,
        reported_guild_id: r.guildId,
        reported_guild_name: "The Hall",
        reported_channel_name: "general",
        resolved_at: null
      })
      const context = (report as { message_context: ReadonlyArray<{ id: string; content: string; author_id: string }> }).message_context
      expect(context).toContainEqual(expect.objectContaining({ id: r.messageId, content: "the evidence itself", author_id: r.author.userId }))
      expect(context).toContainEqual(expect.objectContaining({ id: r.earlier, content: "an earlier message" }))

      // Every filter of the search finds it; one that does not match leaves it out.
      const search = (body: Record<string, unknown>) =>
        Effect.map(asAdmin("POST", "/admin/reports/search", body), (reply) => ReportPage(ok(reply)))
      const filters: ReadonlyArray<Record<string, unknown>> = [
        { reported_user_id: r.author.userId },
        { reporter_id: r.reporter.userId },
        { reported_guild_id: r.guildId, report_type: 0, status: 0, category: "harassment" },
        { guild_context_id: r.guildId, reported_channel_id: r.channelId },
        { query: "evidence itself", sort_by: "reported_at", sort_order: "asc", limit: 10, offset: 0 }
      ]
      for (const filter of filters) {
        const found = yield* search(filter)
        assert.deepStrictEqual(found.reports.map((x) => x.report_id), [r.reportId], JSON.stringify(filter))
        assert.strictEqual(found.total, 1)
      }
      assert.strictEqual((yield* search({ reporter_id: r.author.userId })).total, 0)
      const page = ok(yield* asAdmin("POST", "/admin/reports/search", { reported_user_id: r.author.userId, limit: 5, offset: 1 }))
      expect(page).toMatchObject({ reports: [], total: 1, limit: 5, offset: 1 })

      const resolved = ok(yield* t.request("POST", "/admin/reports/resolve", {
        token: admin(t),
        body: { report_id: r.reportId, public_comment: "We removed the account's access." },
        headers: { "x-audit-log-reason": "clear violation" }
      }))
      expect(resolved).toMatchObject({ report_id: r.reportId, status: 1, public_comment: "We removed the account's access." })
      assert.match(field(resolved, "resolved_at"), /^\d{4}-/)
      const told = yield* mail.next(r.reporter.email, /report was resolved/i)
      assert.include(told.text, "We removed the account's access.")
      assert.include(told.text, r.reportId)
      expectError(yield* asAdmin("POST", "/admin/reports/resolve", { report_id: r.reportId }), 400, "REPORT_ALREADY_RESOLVED")
      expectError(yield* asAdmin("POST", "/admin/reports/resolve", { report_id: "1" }), 404, "UNKNOWN_REPORT")

      const after = ok(yield* asAdmin("GET", `/admin/reports/${r.reportId}`))
      expect(after).toMatchObject({ status: 1, resolved_by_admin_id: expect.any(String), public_comment: "We removed the account's access." })
      const resolvedList = ReportList(ok(yield* asAdmin("POST", "/admin/reports/list", { status: 1, limit: 200 })))
      assert.include(resolvedList.reports.map((x) => x.report_id), r.reportId)
      const audit = yield* queryAt(t.databaseUrl, "SELECT action, audit_log_reason FROM admin_audit_logs WHERE target_id = $1", [r.reportId])
      expect(audit).toContainEqual({ action: "resolve_report", audit_log_reason: "clear violation" })
    }))

  it.effect("a legal hold keeps the evidence from its author's delete and from bulk deletes; release lets it go", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const r = yield* reportedMessage("held words")
      const loose = yield* sent(r.author.token, r.channelId, "not evidence")
      const holdPath = `/admin/reports/${r.reportId}/legal-hold`
      assert.deepStrictEqual(ok(yield* asAdmin("GET", holdPath)), { held: false, message_ids: [] })
      const held = Hold(ok(yield* asAdmin("POST", holdPath, {})))
      assert.isTrue(held.held)
      assert.include(held.message_ids, r.messageId)
      assert.include(held.message_ids, r.earlier)

      const single = `/channels/${r.channelId}/messages/${r.messageId}`
      expectError(yield* t.request("DELETE", single, { token: r.author.token }), 403, "RESOURCE_LOCKED")
      // The owner's bulk delete takes the loose one and skips the held ones.
      ok(yield* t.request("POST", `/channels/${r.channelId}/messages/bulk-delete`, {
        token: r.owner.token,
        body: { messages: [r.messageId, r.earlier, loose] }
      }), 204)
      const left = yield* queryAt(t.databaseUrl, "SELECT id::text AS id FROM messages WHERE channel_id = $1 ORDER BY id", [r.channelId])
      assert.deepStrictEqual(left.map((row) => row.id), [r.earlier, r.messageId])
      expect(ok(yield* t.request("GET", single, { token: r.reporter.token }))).toMatchObject({ content: "held words" })
      // Deleting the channel or the guild would delete the held messages with it: both wait for the release.
      expectError(yield* t.request("DELETE", `/channels/${r.channelId}`, { token: r.owner.token }), 403, "RESOURCE_LOCKED")
      const deleteGuild = yield* t.request("POST", `/guilds/${r.guildId}/delete`, { token: r.owner.token, body: { password: "correct horse battery" } })
      expectError(deleteGuild, 403, "RESOURCE_LOCKED")

      assert.deepStrictEqual(ok(yield* asAdmin("POST", holdPath, { held: false })), { held: false, message_ids: [] })
      ok(yield* t.request("DELETE", single, { token: r.author.token }), 204)
      expectError(yield* t.request("GET", single, { token: r.reporter.token }), 404, "UNKNOWN_MESSAGE")
      const audit = yield* queryAt(t.databaseUrl, "SELECT action FROM admin_audit_logs WHERE target_id = $1 ORDER BY id", [r.reportId])
      assert.deepStrictEqual(audit.map((row) => row.action), ["set_legal_hold", "release_legal_hold"])
      // A report that names no message has nothing to hold.
      const userReport = ok(yield* t.request("POST", "/reports/user", { token: r.reporter.token, body: { user_id: r.author.userId, category: "harassment" } }))
      expectError(yield* asAdmin("POST", `/admin/reports/${field(userReport, "report_id")}/legal-hold`, {}), 400, "REPORT_HAS_NO_MESSAGES")
    }))

  it.effect("authority: a submission the authority refuses is retried by the sweep until it is taken; twice is refused", () =>
    Effect.gen(function*() {
      const fake = yield* FakeAuthority
      const r = yield* reportedMessage()
      const status = (id: string) => Effect.map(asAdmin("GET", `/admin/reports/${id}/authority-status`), (reply) => Status(ok(reply)))
      expect(yield* status(r.reportId)).toMatchObject({ status: "not_submitted", authority_report_id: null })

      yield* fake.failNext(2)
      const first = ok(yield* asAdmin("POST", `/admin/reports/${r.reportId}/authority-submit`))
      expect(first).toMatchObject({ success: false, authority_report_id: null })
      assert.match(String((first as { error: unknown }).error), /^AUTHORITY_SUBMISSION_FAILED/)
      expect(yield* status(r.reportId)).toMatchObject({ status: "pending", failure_reason: expect.stringContaining("503") })
      expectError(yield* asAdmin("POST", `/admin/reports/${r.reportId}/authority-submit`), 400, "AUTHORITY_ALREADY_SUBMITTED")

      const done = yield* waitFor(status(r.reportId), (s) => s.status === "submitted", "the sweep's retry")
      expect(done).toMatchObject({ authority_report_id: `AUTH-${r.reportId}`, failure_reason: null, submitted_at: expect.any(String) })
      assert.isString(done.submitted_by_admin_id)
      assert.include(yield* fake.accepted, r.reportId)
      assert.isAtLeast(yield* fake.attempts, 3)
      expectError(yield* asAdmin("POST", `/admin/reports/${r.reportId}/authority-submit`), 400, "AUTHORITY_ALREADY_SUBMITTED")

      // Taken at the first try.
      const other = yield* reportedMessage()
      expect(ok(yield* asAdmin("POST", `/admin/reports/${other.reportId}/authority-submit`))).toMatchObject({
        success: true,
        error: null,
        authority_report_id: `AUTH-${other.reportId}`
      })
      expect(yield* status(other.reportId)).toMatchObject({ status: "submitted" })
      expectError(yield* asAdmin("POST", "/admin/reports/1/authority-submit"), 404, "UNKNOWN_REPORT")
    }))

  it.effect("a ban's delete_message_days and the self-deletion job keep held messages, and the job still finishes", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const r = yield* reportedMessage("kept by the hold")
      const goes = yield* sent(r.author.token, r.channelId, "this one goes")
      const ownerChatter = yield* sent(r.owner.token, r.channelId, "owner chatter")
      ok(yield* asAdmin("POST", `/admin/reports/${r.reportId}/legal-hold`, {}))
      const idsOf = (authorId: string) =>
        Effect.map(queryAt(t.databaseUrl, "SELECT id::text AS id FROM messages WHERE author_id = $1 ORDER BY id", [authorId]), (rows) => rows.map((row) => row.id))

      ok(yield* t.request("PUT", `/guilds/${r.guildId}/bans/${r.author.userId}`, { token: r.owner.token, body: { delete_message_days: 1 } }), 204)
      assert.deepStrictEqual(yield* idsOf(r.author.userId), [r.messageId])
      const page = MessageIds(ok(yield* t.request("GET", `/channels/${r.channelId}/messages`, { token: r.owner.token })))
      assert.include(page.map((m) => m.id), r.messageId)
      assert.notInclude(page.map((m) => m.id), goes)

      // The owner's own messages: the held one (the report's context) stays, the job ends anyway.
      ok(yield* t.request("POST", "/users/@me/messages/delete", { token: r.owner.token, body: { password: "correct horse battery" } }), 204)
      const jobs = Effect.map(queryAt(t.databaseUrl, "SELECT count(*)::int AS n FROM message_deletion_jobs WHERE user_id = $1", [r.owner.userId]), (rows) =>
        Number(rows[0]?.n ?? -1))
      yield* waitFor(jobs, (n) => n === 0, "the self-deletion job to finish")
      assert.deepStrictEqual(yield* idsOf(r.owner.userId), [r.earlier])
      assert.notInclude(yield* idsOf(r.owner.userId), ownerChatter)
    }))

  it.effect("a DM message: its recipient reports it, no one else can; held, its author cannot delete it", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const sender = yield* user
      const recipient = yield* user
      const outsider = yield* user
      const channelId = yield* openDm(recipient, sender)
      const messageId = yield* sent(sender.token, channelId, "a DM worth reporting")
      const body = { channel_id: channelId, message_id: messageId, category: "harassment" }
      const refused = yield* t.request("POST", "/reports/message", { token: outsider.token, body })
      assert.oneOf(refused.status, [403, 404], JSON.stringify(refused.body))
      const reportId = field(ok(yield* t.request("POST", "/reports/message", { token: recipient.token, body })), "report_id")
      const report = ok(yield* asAdmin("GET", `/admin/reports/${reportId}`))
      expect(report).toMatchObject({ reported_user_id: sender.userId, reported_guild_id: null, reported_channel_id: channelId })
      ok(yield* asAdmin("POST", `/admin/reports/${reportId}/legal-hold`, {}))
      expectError(yield* t.request("DELETE", `/channels/${channelId}/messages/${messageId}`, { token: sender.token }), 403, "RESOURCE_LOCKED")
      ok(yield* asAdmin("POST", `/admin/reports/${reportId}/legal-hold`, { held: false }))
      ok(yield* t.request("DELETE", `/channels/${channelId}/messages/${messageId}`, { token: sender.token }), 204)
    }))
})
