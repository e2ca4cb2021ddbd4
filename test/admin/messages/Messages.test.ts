import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { dataOf, identified, nextMatching } from "../../gateway/Client.ts"
import { guildWithChannel, idsOf, sent } from "../../messages/Fixtures.ts"
import { payload, postMultipart } from "../../messages/Multipart.ts"
import { ok, openDm, user } from "../../dms/Fixtures.ts"
import { setAcls } from "../../support/Acls.ts"
import { expectError, field, TestApi } from "../../support/Api.ts"
import { addMember } from "../../support/Cast.ts"
import { queryAt } from "../../support/Postgres.ts"

const admin = (key: string) => `Admin ${key}`

/** A POST of an admin route, with the test's `*` key unless another credential is given. */
const post = (path: string, body: unknown, token?: string) =>
  Effect.flatMap(TestApi, (api) => api.request("POST", path, { token: token ?? admin(api.adminKey), body }))

const stillThere = (channelId: string, messageId: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const rows = yield* queryAt(api.databaseUrl, "SELECT 1 FROM messages WHERE channel_id = $1 AND id = $2", [channelId, messageId])
    return rows.length > 0
  })

const hold = (messageId: string) =>
  Effect.flatMap(TestApi, (api) =>
    queryAt(api.databaseUrl, "INSERT INTO legal_hold_messages (message_id, report_id) VALUES ($1, 1)", [messageId]))

/** A job's status, polled until it is no longer in progress. */
const finished = (jobId: string) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 30_000
    for (;;) {
      const status = ok(yield* post("/admin/messages/shred-status", { job_id: jobId }))
      if (field(status, "status") !== "in_progress" || Date.now() > deadline) return status
      yield* Effect.sleep("200 millis")
    }
  })

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

/** The objects of the array `key` of a reply's body. */
const listOf = (body: unknown, key: string): ReadonlyArray<Record<string, unknown>> => {
  const value: unknown = isRecord(body) ? body[key] : undefined
  assert.isTrue(Array.isArray(value), JSON.stringify(body))
  return Array.isArray(value) ? value.filter(isRecord) : []
}

interface Route {
  readonly path: string
  readonly acl: string
  readonly body: Record<string, unknown>
  readonly bad: Record<string, unknown>
}

const ROUTES: ReadonlyArray<Route> = [
  { path: "/admin/messages/delete", acl: "message:delete", body: { channel_id: "1", message_id: "2" }, bad: { channel_id: "x", message_id: "2" } },
  { path: "/admin/messages/delete-all", acl: "message:delete_all", body: { user_id: "1" }, bad: { user_id: "1", dry_run: "yes" } },
  { path: "/admin/messages/lookup", acl: "message:lookup", body: { channel_id: "1", message_id: "2" }, bad: { channel_id: "1", message_id: "2", context_limit: -1 } },
  {
    path: "/admin/messages/lookup-by-attachment",
    acl: "message:lookup",
    body: { channel_id: "1", attachment_id: "2", filename: "a.txt" },
    bad: { channel_id: "1", attachment_id: "2" }
  },
  { path: "/admin/messages/shred", acl: "message:shred", body: { user_id: "1", entries: [{ channel_id: "1", message_id: "2" }] }, bad: { user_id: "1", entries: [] } },
  { path: "/admin/messages/shred-status", acl: "message:shred", body: { job_id: "1" }, bad: {} }
]

layer(TestApi.layerWith({ ADMIN_MESSAGE_JOB_SWEEP_SECONDS: "1" }), { timeout: 180_000, excludeTestServices: true })("admin: messages", (it) => {
  it.effect("every route: 401 without credentials, 403 without its ACL (another one held), 400 on a bad body; its own ACL is enough", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const operator = yield* api.register()
      yield* setAcls(operator.userId, ["admin:authenticate", "user:lookup"])
      const key = field(ok(yield* post("/admin/api-keys", { name: "lookups", acls: ["user:lookup"] })), "key")
      for (const route of ROUTES) {
        expectError(yield* api.request("POST", route.path, { body: route.body }), 401, "UNAUTHORIZED")
        expectError(yield* post(route.path, route.body, operator.token), 403, "MISSING_PERMISSIONS")
        expectError(yield* post(route.path, route.body, admin(key)), 403, "MISSING_PERMISSIONS")
        expectError(yield* post(route.path, route.bad), 400, "INVALID_FORM_BODY")
      }
      for (const route of ROUTES.filter((r) => r.path !== "/admin/messages/delete")) {
        yield* setAcls(operator.userId, ["admin:authenticate", route.acl])
        const reply = yield* post(route.path, route.body, operator.token)
        assert.strictEqual(reply.status, 200, `${route.path}: ${JSON.stringify(reply.body)}`)
      }
    }))

  it.effect("lookup: the message with its neighbours, oldest first; by attachment; nothing found", () =>
    Effect.gen(function*() {
      const { owner, channelId } = yield* guildWithChannel
      const ids: Array<string> = []
      for (let i = 0; i < 9; i++) ids.push(yield* sent(owner.token, channelId, `m${i}`))
      const middle = ids[4] ?? ""
      const found = ok(yield* post("/admin/messages/lookup", { channel_id: channelId, message_id: middle, context_limit: 4 }))
      expect(found).toMatchObject({ message_id: middle })
      const messages = listOf(found, "messages")
      assert.deepStrictEqual(messages.map((m) => m.id), ids.slice(2, 7))
      expect(messages[2]).toMatchObject({ id: middle, channel_id: channelId, author_id: owner.userId, content: "m4", attachments: [] })
      assert.isString(messages[2]?.author_username)
      assert.isString(messages[2]?.author_discriminator)
      assert.isString(messages[2]?.timestamp)
      // Production's default: 25 each side.
      const all = ok(yield* post("/admin/messages/lookup", { channel_id: channelId, message_id: middle }))
      assert.strictEqual(listOf(all, "messages").length, 9)

      const withFile = yield* postMultipart(owner.token, channelId, [
        payload({ content: "with a file", attachments: [{ id: 0 }] }),
        { name: "files[0]", filename: "evidence.txt", data: Buffer.from("hello"), type: "text/plain" }
      ])
      const fileMessage = field(ok(withFile), "id")
      const attachmentId = field(listOf(withFile.body, "attachments")[0], "id")
      const byFile = ok(yield* post("/admin/messages/lookup-by-attachment", {
        channel_id: channelId,
        attachment_id: attachmentId,
        filename: "evidence.txt",
        context_limit: 2
      }))
      expect(byFile).toMatchObject({ message_id: fileMessage })
      const near = listOf(byFile, "messages")
      assert.deepStrictEqual(near.map((m) => m.id), [ids[8], fileMessage])
      expect(near[1]).toMatchObject({ content: "with a file", attachments: [{ filename: "evidence.txt", url: expect.stringContaining("evidence.txt") }] })
      const wrongName = ok(yield* post("/admin/messages/lookup-by-attachment", { channel_id: channelId, attachment_id: attachmentId, filename: "other.txt" }))
      assert.deepStrictEqual(wrongName, { message_id: null, messages: [] })
    }))

  it.effect("delete: a guild message goes with MESSAGE_DELETE and an audit entry; a DM message too; unknown 404; held 403", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const member = yield* api.register()
      yield* addMember(guildId, member.userId)
      const doomed = yield* sent(member.token, channelId, "bad words")
      const kept = yield* sent(member.token, channelId, "fine words")
      const { client } = yield* identified(owner.token)
      assert.deepStrictEqual(ok(yield* post("/admin/messages/delete", { channel_id: channelId, message_id: doomed })), { success: true })
      const event = yield* nextMatching(client, "MESSAGE_DELETE", (d) => JSON.stringify(d).includes(doomed))
      expect(dataOf(event)).toMatchObject({ id: doomed, channel_id: channelId, guild_id: guildId, author_id: member.userId })
      assert.deepStrictEqual(idsOf(yield* api.request("GET", `/channels/${channelId}/messages`, { token: owner.token })), [kept])
      assert.isFalse(yield* stillThere(channelId, doomed))
      expectError(yield* post("/admin/messages/delete", { channel_id: channelId, message_id: doomed }), 404, "UNKNOWN_MESSAGE")
      expectError(yield* post("/admin/messages/delete", { channel_id: "1", message_id: doomed }), 404, "UNKNOWN_CHANNEL")
      const logs = ok(yield* post("/admin/audit-logs/search", { target_id: doomed }))
      expect(logs).toMatchObject({ logs: [{ action: "delete_message", target_type: "message", metadata: { channel_id: channelId, message_id: doomed } }] })
      // The guild's own audit log has a moderator's delete in the operator's name (read from Postgres: the
      // member-facing route's options carry `count` as text, which the reference shape refuses; not ours to change).
      const guildLog = yield* queryAt(api.databaseUrl, "SELECT user_id::text AS user_id, target_id FROM guild_audit_log_entries WHERE guild_id = $1 AND action_type = 72", [guildId])
      const operatorId = field(listOf(logs, "logs")[0], "admin_user_id")
      assert.deepStrictEqual(guildLog, [{ user_id: operatorId, target_id: member.userId }])

      // A held message stays.
      yield* hold(kept)
      expectError(yield* post("/admin/messages/delete", { channel_id: channelId, message_id: kept }), 403, "RESOURCE_LOCKED")
      assert.isTrue(yield* stillThere(channelId, kept))

      // A DM: both recipients are told.
      const alice = yield* user
      const bob = yield* user
      const dm = yield* openDm(alice, bob)
      const dmMessage = field(ok(yield* api.request("POST", `/channels/${dm}/messages`, { token: alice.token, body: { content: "psst" } })), "id")
      const bobSession = yield* identified(bob.token)
      assert.deepStrictEqual(ok(yield* post("/admin/messages/delete", { channel_id: dm, message_id: dmMessage })), { success: true })
      const dmEvent = yield* nextMatching(bobSession.client, "MESSAGE_DELETE", (d) => JSON.stringify(d).includes(dmMessage))
      expect(dataOf(dmEvent)).toMatchObject({ id: dmMessage, channel_id: dm, author_id: alice.userId })
      assert.isFalse(yield* stillThere(dm, dmMessage))
    }))

  it.effect("shred: the user's named messages go; others', unknown, repeated and held ones are skipped; status as it goes", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const target = yield* api.register()
      yield* addMember(guildId, target.userId)
      const mine = [yield* sent(target.token, channelId, "a"), yield* sent(target.token, channelId, "b"), yield* sent(target.token, channelId, "c")]
      const held = yield* sent(target.token, channelId, "held")
      yield* hold(held)
      const others = yield* sent(owner.token, channelId, "owner's")
      const entry = (messageId: string, channel = channelId) => ({ channel_id: channel, message_id: messageId })
      const entries = [...mine.map((id) => entry(id)), entry(mine[0] ?? ""), entry(held), entry(others), entry("123", "1")]
      const { client } = yield* identified(owner.token)
      const queued = ok(yield* post("/admin/messages/shred", { user_id: target.userId, entries }))
      expect(queued).toMatchObject({ success: true, requested: 7 })
      const jobId = field(queued, "job_id")
      const status = yield* finished(jobId)
      expect(status).toMatchObject({ status: "completed", requested: 7, total: 5, processed: 3, skipped: 4 })
      assert.isString(field(status, "completed_at"))
      const bulk = yield* nextMatching(client, "MESSAGE_DELETE_BULK", (d) => JSON.stringify(d).includes(mine[0] ?? ""))
      expect(dataOf(bulk)).toMatchObject({ channel_id: channelId, guild_id: guildId })
      assert.sameMembers([...String(dataOf(bulk).ids).split(",")], [...mine])
      assert.deepStrictEqual(idsOf(yield* api.request("GET", `/channels/${channelId}/messages`, { token: owner.token })), [others, held])
      assert.isTrue(yield* stillThere(channelId, held))
      assert.deepStrictEqual(ok(yield* post("/admin/messages/shred-status", { job_id: "42" })), { status: "not_found" })
      const logs = ok(yield* post("/admin/audit-logs/search", { target_id: target.userId }))
      expect(logs).toMatchObject({ logs: [{ action: "queue_message_shred", metadata: { job_id: jobId, requested_entries: "7" } }] })
    }))
})
