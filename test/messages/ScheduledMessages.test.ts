import { assert, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { Permission } from "../../src/model/Permissions.ts"
import { expectError, field, type Reply, TestApi } from "../support/Api.ts"
import { clusterEnvironment, eventually, restartableServer } from "../support/Cluster.ts"
import { queryAt } from "../support/Postgres.ts"
import { freePort, type Started, startProcess, stopProcess, waitHealthy } from "../support/Processes.ts"
import { CHAT, fieldCode, guildWithChannel, idsOf, memberWith, newChannel, utcWall } from "./Fixtures.ts"

/** How many messages of the channel Postgres holds with `content`. */
const stored = (databaseUrl: string, channelId: string, content: string) =>
  Effect.map(
    queryAt(databaseUrl, "SELECT count(*)::int AS n FROM messages WHERE channel_id = $1 AND content = $2", [channelId, content]),
    (rows) => Number(rows[0]?.n ?? -1)
  )

const statusOf = (databaseUrl: string, id: string) =>
  Effect.map(queryAt(databaseUrl, "SELECT status FROM scheduled_messages WHERE id = $1", [id]), (rows) => String(rows[0]?.status))

layer(TestApi.layerWith({ SCHEDULED_MESSAGE_SWEEP_SECONDS: "1" }), { timeout: 180_000, excludeTestServices: true })(
  "scheduled messages over HTTP",
  (it) => {
    it.effect("schedule, list, edit, then the sweep sends it once; a lost mark does not send it twice", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const { owner, channelId } = yield* guildWithChannel
        const schedule = (body: Record<string, unknown>) =>
          api.request("POST", `/channels/${channelId}/messages/schedule`, { token: owner.token, body })

        // Wall time in a zone with an offset: 09:30 in Kolkata (UTC+5:30) is 04:00 UTC.
        const day = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10)
        const far = yield* schedule({ content: "later", scheduled_local_at: `${day}T09:30:00`, timezone: "Asia/Kolkata" })
        assert.strictEqual(far.status, 201, JSON.stringify(far.body))
        expect(far.body).toMatchObject({
          channel_id: channelId,
          scheduled_at: `${day}T04:00:00.000Z`,
          scheduled_local_at: `${day}T09:30:00`,
          timezone: "Asia/Kolkata",
          status: "scheduled",
          status_reason: null,
          payload: { content: "later" },
          invalidated_at: null
        })

        const soon = yield* schedule({ content: "draft", scheduled_local_at: utcWall(Date.now() + 30_000), timezone: "UTC" })
        assert.strictEqual(soon.status, 201, JSON.stringify(soon.body))
        const id = field(soon.body, "id")
        const list = yield* api.request("GET", "/users/@me/scheduled-messages", { token: owner.token })
        assert.strictEqual(list.status, 200, JSON.stringify(list.body))
        assert.deepStrictEqual((list.body as ReadonlyArray<{ id: string }>).map((m) => m.id), [field(far.body, "id"), id])

        const content = `scheduled ${randomUUID()}`
        const edited = yield* api.request("PATCH", `/users/@me/scheduled-messages/${id}`, {
          token: owner.token,
          body: { content, scheduled_local_at: utcWall(Date.now() + 2_000), timezone: "UTC" }
        })
        assert.strictEqual(edited.status, 200, JSON.stringify(edited.body))
        expect(edited.body).toMatchObject({ id, payload: { content }, status: "scheduled" })

        yield* eventually("sent", statusOf(api.databaseUrl, id), (s) => s === "sent")
        const one = yield* api.request("GET", `/users/@me/scheduled-messages/${id}`, { token: owner.token })
        expect(one.body).toMatchObject({ id, status: "sent" })
        const page = yield* api.request("GET", `/channels/${channelId}/messages`, { token: owner.token })
        const contents = (page.body as ReadonlyArray<{ content: string; author: { id: string } }>).filter((m) => m.content === content)
        assert.strictEqual(contents.length, 1, JSON.stringify(page.body))
        assert.strictEqual(contents[0]?.author.id, owner.userId)
        assert.strictEqual(yield* stored(api.databaseUrl, channelId, content), 1)

        // Put back as due behind the author's actor, which knows it was sent: the sweep sends nothing and
        // Postgres is told again. (A send lost between the guild's commit and the outcome, with the
        // actor's state saying so, is test/users/UserActorLists.test.ts's.)
        yield* queryAt(api.databaseUrl, "UPDATE scheduled_messages SET status = 'scheduled', claimed_until = NULL, message_id = NULL WHERE id = $1", [id])
        yield* eventually("marked again", statusOf(api.databaseUrl, id), (s) => s === "sent")
        assert.strictEqual(yield* stored(api.databaseUrl, channelId, content), 1)
        const same = yield* queryAt(api.databaseUrl, "SELECT s.message_id::text AS a, m.id::text AS b FROM scheduled_messages s JOIN messages m ON m.channel_id = s.channel_id AND m.content = $2 WHERE s.id = $1", [id, content])
        assert.strictEqual(same[0]?.a, same[0]?.b)

        // Sent: no more edits; deleting the record is allowed.
        const late = yield* api.request("PATCH", `/users/@me/scheduled-messages/${id}`, {
          token: owner.token,
          body: { content: "x", scheduled_local_at: utcWall(Date.now() + 60_000), timezone: "UTC" }
        })
        expectError(late, 400, "INVALID_FORM_BODY")
        const removed = yield* api.request("DELETE", `/users/@me/scheduled-messages/${id}`, { token: owner.token })
        assert.strictEqual(removed.status, 204, JSON.stringify(removed.body))
        expectError(yield* api.request("GET", `/users/@me/scheduled-messages/${id}`, { token: owner.token }), 404, "UNKNOWN_MESSAGE")

        // A cancelled message is never sent.
        const cancelled = yield* schedule({ content: "never", scheduled_local_at: utcWall(Date.now() + 1_500), timezone: "UTC" })
        const cancel = yield* api.request("DELETE", `/users/@me/scheduled-messages/${field(cancelled.body, "id")}`, { token: owner.token })
        assert.strictEqual(cancel.status, 204, JSON.stringify(cancel.body))
        yield* Effect.sleep("3 seconds")
        assert.strictEqual(yield* stored(api.databaseUrl, channelId, "never"), 0)
      }))

    it.effect("bad input: times, time zones and the message itself", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const { owner, channelId } = yield* guildWithChannel
        const schedule = (body: Record<string, unknown>) =>
          api.request("POST", `/channels/${channelId}/messages/schedule`, { token: owner.token, body })
        const invalid = (reply: Reply, code: string) => {
          expectError(reply, 400, "INVALID_FORM_BODY")
          assert.strictEqual(fieldCode(reply), code, JSON.stringify(reply.body))
        }
        const inAnHour = utcWall(Date.now() + 3600_000)
        invalid(yield* schedule({ content: "x", scheduled_local_at: "tomorrow", timezone: "UTC" }), "INVALID_DATETIME_FOR_SCHEDULED_SEND")
        invalid(yield* schedule({ content: "x", scheduled_local_at: "2030-02-30T10:00:00", timezone: "UTC" }), "INVALID_DATETIME_FOR_SCHEDULED_SEND")
        invalid(yield* schedule({ content: "x", scheduled_local_at: inAnHour, timezone: "Mars/Olympus" }), "INVALID_TIMEZONE_IDENTIFIER")
        invalid(yield* schedule({ content: "x", scheduled_local_at: utcWall(Date.now() - 60_000), timezone: "UTC" }), "SCHEDULED_TIME_MUST_BE_FUTURE")
        invalid(yield* schedule({ content: "x", scheduled_local_at: utcWall(Date.now() + 31 * 86_400_000), timezone: "UTC" }), "SCHEDULED_MESSAGES_MAX_30_DAYS")
        invalid(yield* schedule({ content: "x".repeat(2001), scheduled_local_at: inAnHour, timezone: "UTC" }), "CONTENT_EXCEEDS_MAX_LENGTH")
        expectError(yield* schedule({ content: " ", scheduled_local_at: inAnHour, timezone: "UTC" }), 400, "CANNOT_SEND_EMPTY_MESSAGE")
        expectError(yield* schedule({ content: "no time" }), 400, "INVALID_FORM_BODY")
        expectError(yield* api.request("GET", "/users/@me/scheduled-messages/abc", { token: owner.token }), 400, "INVALID_FORM_BODY")
        const none = yield* api.request("GET", "/users/@me/scheduled-messages", { token: owner.token })
        assert.deepStrictEqual(none.body, [])
      }))

    it.effect("forbidden: no SEND_MESSAGES, someone else's message, no session; a send refused when due marks it invalid", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const { owner, guildId, channelId } = yield* guildWithChannel
        const reader = yield* memberWith(guildId, Permission.VIEW_CHANNEL | Permission.READ_MESSAGE_HISTORY)
        const chatter = yield* memberWith(guildId, CHAT)
        const body = { content: "hi", scheduled_local_at: utcWall(Date.now() + 3600_000), timezone: "UTC" }
        const path = `/channels/${channelId}/messages/schedule`
        expectError(yield* api.request("POST", path, { token: reader.token, body }), 403, "MISSING_PERMISSIONS")
        const outsider = yield* api.register()
        expectError(yield* api.request("POST", path, { token: outsider.token, body }), 403, "MISSING_ACCESS")
        expectError(yield* api.request("POST", path, { body }), 401, "UNAUTHORIZED")

        const mine = yield* api.request("POST", path, { token: owner.token, body })
        const id = field(mine.body, "id")
        expectError(yield* api.request("GET", `/users/@me/scheduled-messages/${id}`, { token: chatter.token }), 404, "UNKNOWN_MESSAGE")
        expectError(yield* api.request("PATCH", `/users/@me/scheduled-messages/${id}`, { token: chatter.token, body }), 404, "UNKNOWN_MESSAGE")
        expectError(yield* api.request("DELETE", `/users/@me/scheduled-messages/${id}`, { token: chatter.token }), 404, "UNKNOWN_MESSAGE")

        // The chatter schedules, then is kicked before it is due: the send is refused and the row says why.
        const theirs = yield* api.request("POST", path, { token: chatter.token, body: { ...body, scheduled_local_at: utcWall(Date.now() + 2_000) } })
        assert.strictEqual(theirs.status, 201, JSON.stringify(theirs.body))
        const kicked = yield* api.request("DELETE", `/guilds/${guildId}/members/${chatter.userId}`, { token: owner.token })
        assert.strictEqual(kicked.status, 204, JSON.stringify(kicked.body))
        const theirId = field(theirs.body, "id")
        yield* eventually("invalid", statusOf(api.databaseUrl, theirId), (s) => s === "invalid")
        const shown = yield* api.request("GET", `/users/@me/scheduled-messages/${theirId}`, { token: chatter.token })
        expect(shown.body).toMatchObject({ status: "invalid", status_reason: "MISSING_ACCESS" })
        assert.isString((shown.body as { invalidated_at: unknown }).invalidated_at)
        assert.deepStrictEqual(idsOf(yield* api.request("GET", `/channels/${channelId}/messages`, { token: owner.token })), [])
      }))

    it.effect("a channel deleted before the message is due: the send is refused and the list says why", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const { owner, guildId } = yield* guildWithChannel
        const channelId = yield* newChannel(owner.token, guildId, { name: "doomed" })
        const reply = yield* api.request("POST", `/channels/${channelId}/messages/schedule`, {
          token: owner.token,
          body: { content: "into the void", scheduled_local_at: utcWall(Date.now() + 2_000), timezone: "UTC" }
        })
        assert.strictEqual(reply.status, 201, JSON.stringify(reply.body))
        const id = field(reply.body, "id")
        const deleted = yield* api.request("DELETE", `/channels/${channelId}`, { token: owner.token })
        assert.strictEqual(deleted.status, 204, JSON.stringify(deleted.body))
        yield* eventually("refused", statusOf(api.databaseUrl, id), (s) => s === "invalid")
        const list = yield* api.request("GET", "/users/@me/scheduled-messages", { token: owner.token })
        expect(list.body).toMatchObject([{ id, channel_id: channelId, status: "invalid", status_reason: "UNKNOWN_CHANNEL" }])
      }))

    it.effect("a scheduled reply to a message older than the actor's window is sent with the message it answers", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const { owner, channelId } = yield* guildWithChannel
        const send = (content: string) => api.request("POST", `/channels/${channelId}/messages`, { token: owner.token, body: { content } })
        const target = field((yield* send("the question")).body, "id")
        // 100 newer messages push it out of the window the actor keeps (MessageWindow.ts).
        for (let i = 0; i < 100; i++) assert.strictEqual((yield* send(`filler ${i}`)).status, 200)
        const reply = yield* api.request("POST", `/channels/${channelId}/messages/schedule`, {
          token: owner.token,
          body: { content: "the answer", message_reference: { message_id: target }, scheduled_local_at: utcWall(Date.now() + 1_000), timezone: "UTC" }
        })
        assert.strictEqual(reply.status, 201, JSON.stringify(reply.body))
        const id = field(reply.body, "id")
        yield* eventually("sent", statusOf(api.databaseUrl, id), (s) => s !== "scheduled")
        const shown = yield* api.request("GET", `/users/@me/scheduled-messages/${id}`, { token: owner.token })
        expect(shown.body).toMatchObject({ status: "sent" })
        const [newest] = (yield* api.request("GET", `/channels/${channelId}/messages?limit=1`, { token: owner.token })).body as ReadonlyArray<unknown>
        expect(newest).toMatchObject({ content: "the answer", message_reference: { message_id: target }, referenced_message: { id: target, content: "the question" } })
      }))
  }
)

/** A user with a guild, on the API at `base`: its token and channel. */
const setUp = (base: string) =>
  Effect.promise(async () => {
    const post = async (path: string, body: unknown, token?: string) => {
      const headers: Record<string, string> = { "content-type": "application/json" }
      if (token !== undefined) headers.authorization = token
      const response = await fetch(base + path, { method: "POST", headers, body: JSON.stringify(body) })
      return { status: response.status, body: (await response.json()) as unknown }
    }
    const registered = await post("/auth/register", {
      email: `s${randomUUID().slice(0, 8)}@example.com`,
      password: "correct horse battery",
      date_of_birth: "2000-01-01",
      consent: true
    })
    const token = field(registered.body, "token")
    const guild = await post("/guilds", { name: "Scheduled" }, token)
    const channels = (guild.body as { channels: ReadonlyArray<{ id: string }> }).channels
    const channelId = channels[0]?.id ?? ""
    const schedule = (content: string, at: number) =>
      post(`/channels/${channelId}/messages/schedule`, { content, scheduled_local_at: utcWall(at), timezone: "UTC" }, token)
    return { token, channelId, schedule }
  })

it.live("a message scheduled before a restart is sent by the server started after it was due", () =>
  Effect.gen(function*() {
    const { base, databaseUrl, start } = yield* restartableServer({ SCHEDULED_MESSAGE_SWEEP_SECONDS: "1" })
    const first = yield* start
    const { channelId, schedule } = yield* setUp(base)
    const dueAt = Date.now() + 3_000
    const reply = yield* Effect.promise(() => schedule("across a restart", dueAt))
    assert.strictEqual(reply.status, 201, JSON.stringify(reply.body))
    yield* stopProcess(first.child)

    yield* Effect.sleep(`${Math.max(0, dueAt - Date.now()) + 1_000} millis`)
    assert.strictEqual(yield* stored(databaseUrl, channelId, "across a restart"), 0)
    yield* start
    yield* eventually("sent after the restart", stored(databaseUrl, channelId, "across a restart"), (n) => n >= 1)
    yield* Effect.sleep("2 seconds")
    assert.strictEqual(yield* stored(databaseUrl, channelId, "across a restart"), 1)
    assert.strictEqual(yield* statusOf(databaseUrl, field(reply.body, "id")), "sent")
  }).pipe(Effect.scoped), { timeout: 120_000 })

it.live("two API processes sweep at once: every message is sent exactly once", () =>
  Effect.gen(function*() {
    const { databaseUrl, env: common } = yield* clusterEnvironment({ SCHEDULED_MESSAGE_SWEEP_SECONDS: "1" })
    yield* startProcess("shards/main.ts", { ...common, SHARD_PORT: String(yield* freePort) })
    const apis: Array<{ base: string; started: Started }> = []
    for (let i = 0; i < 2; i++) {
      const port = yield* freePort
      const started = yield* startProcess("src/main.ts", { ...common, PORT: String(port) })
      apis.push({ base: `http://127.0.0.1:${port}`, started })
    }
    for (const api of apis) yield* waitHealthy(`${api.base}/_health`, api.started, 90)
    const { channelId, schedule } = yield* setUp(apis[0]?.base ?? "")

    // Due together, so both processes find them in the same sweeps.
    const dueAt = Date.now() + 4_000
    const contents = Array.from({ length: 30 }, (_, i) => `race ${i}`)
    const replies = yield* Effect.forEach(contents, (c) => Effect.promise(() => schedule(c, dueAt)), { concurrency: 10 })
    assert.deepStrictEqual(replies.map((r) => r.status), contents.map(() => 201))

    const sentCount = Effect.map(
      queryAt(databaseUrl, "SELECT count(*)::int AS n FROM scheduled_messages WHERE status = 'sent'"),
      (rows) => Number(rows[0]?.n ?? 0)
    )
    yield* eventually("all sent", sentCount, (n) => n === contents.length, 60)
    yield* Effect.sleep("2 seconds")
    const counts = yield* queryAt(databaseUrl, "SELECT content, count(*)::int AS n FROM messages WHERE channel_id = $1 GROUP BY content", [channelId])
    assert.strictEqual(counts.length, contents.length, JSON.stringify(counts))
    assert.isTrue(counts.every((r) => r.n === 1), JSON.stringify(counts))
  }).pipe(Effect.scoped), { timeout: 180_000 })
