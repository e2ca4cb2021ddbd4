import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { dataOf, type GatewayClient, identified } from "../gateway/Client.ts"
import { expectError, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"
import { CHAT, guildWithChannel, idsOf, memberWith, sent } from "./Fixtures.ts"

const PASSWORD = "correct horse battery"

const countOf = (databaseUrl: string, authorId: string) =>
  Effect.map(
    queryAt(databaseUrl, "SELECT count(*)::int AS n FROM messages WHERE author_id = $1", [authorId]),
    (rows) => Number(rows[0]?.n ?? -1)
  )

/** The MESSAGE_DELETE payloads the client receives, by message id, until it has `n` of them. */
const deletions = (client: GatewayClient, n: number) =>
  Effect.gen(function*() {
    const byId = new Map<string, Record<string, unknown>>()
    while (byId.size < n) {
      const frame = yield* client.dispatch
      if (frame.t === "MESSAGE_DELETE") byId.set(String(dataOf(frame).id), dataOf(frame))
    }
    return byId
  })

// Starts 3 seconds after the request, swept every second: long enough to cancel, short enough to wait for.
layer(TestApi.layerWith({ MESSAGE_DELETION_SWEEP_SECONDS: "1", MESSAGE_DELETION_DELAY_SECONDS: "3" }), {
  timeout: 180_000,
  excludeTestServices: true
})("self-service message deletion", (it) => {
  it.effect("dry run, sudo, cancel, then batches through the actors across guilds", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const first = yield* guildWithChannel
      const second = yield* guildWithChannel
      const leaver = yield* memberWith(first.guildId, CHAT)
      yield* queryAt(api.databaseUrl, "INSERT INTO guild_members (guild_id, user_id) VALUES ($1, $2)", [second.guildId, leaver.userId])
      yield* queryAt(api.databaseUrl, "UPDATE guild_roles SET permissions = $2 WHERE id = $1", [second.guildId, CHAT.toString()])
      const reloaded = yield* api.request("POST", "/admin/guilds/reload", { token: `Admin ${api.adminKey}`, body: { guild_id: second.guildId } })
      assert.strictEqual(reloaded.status, 200, JSON.stringify(reloaded.body))

      // 150 old messages only Postgres has (more than one batch), and a few in the actors' windows.
      yield* queryAt(
        api.databaseUrl,
        `INSERT INTO messages (channel_id, id, guild_id, author_id, content, created_at)
         SELECT $1, ((((extract(epoch FROM now()) * 1000)::bigint - 86400000 - 1420070400000) << 22) + g), $2, $3, 'old', now()
         FROM generate_series(1, 150) g`,
        [first.channelId, first.guildId, leaver.userId]
      )
      const recent = [
        yield* sent(leaver.token, first.channelId, "one"),
        yield* sent(leaver.token, second.channelId, "two"),
        yield* sent(leaver.token, second.channelId, "three")
      ]
      const othersMessage = yield* sent(first.owner.token, first.channelId, "not theirs")

      const dry = yield* api.request("POST", "/users/@me/messages/delete/test", { token: leaver.token })
      assert.strictEqual(dry.status, 200, JSON.stringify(dry.body))
      assert.deepStrictEqual(dry.body, { channel_count: 2, message_count: 153 })

      expectError(yield* api.request("POST", "/users/@me/messages/delete", { token: leaver.token, body: {} }), 403, "SUDO_MODE_REQUIRED")
      expectError(yield* api.request("POST", "/users/@me/messages/delete", { token: leaver.token, body: { password: "wrong" } }), 400, "INVALID_FORM_BODY")
      expectError(yield* api.request("POST", "/users/@me/messages/delete", { body: { password: PASSWORD } }), 401, "UNAUTHORIZED")

      // Asked for, then cancelled before it starts: nothing goes.
      const asked = yield* api.request("POST", "/users/@me/messages/delete", { token: leaver.token, body: { password: PASSWORD } })
      assert.strictEqual(asked.status, 204, JSON.stringify(asked.body))
      const job = yield* queryAt(api.databaseUrl, "SELECT channel_count, message_count FROM message_deletion_jobs WHERE user_id = $1", [leaver.userId])
      assert.deepStrictEqual(job, [{ channel_count: 2, message_count: 153 }])
      const cancelled = yield* api.request("DELETE", "/users/@me/messages/delete", { token: leaver.token })
      assert.strictEqual(cancelled.status, 200, JSON.stringify(cancelled.body))
      expect(cancelled.body).toEqual({ success: true })
      yield* Effect.sleep("5 seconds")
      assert.strictEqual(yield* countOf(api.databaseUrl, leaver.userId), 153)

      // Asked for again: the owner of the second guild sees each message go.
      const { client } = yield* identified(second.owner.token)
      const again = yield* api.request("POST", "/users/@me/messages/delete", { token: leaver.token, body: { password: PASSWORD } })
      assert.strictEqual(again.status, 204, JSON.stringify(again.body))
      const pending = Effect.map(api.request("GET", "/users/@me", { token: leaver.token }), (reply) =>
        (reply.body as { pending_bulk_message_deletion: unknown }).pending_bulk_message_deletion)
      expect(yield* pending).toMatchObject({ channel_count: 2, message_count: 153 })
      const seen = yield* deletions(client, 2).pipe(Effect.timeout("20 seconds"), Effect.orDie)
      assert.deepStrictEqual([...seen.keys()].sort(), [recent[1], recent[2]].sort())
      // Each says what went and whose it was, as the production service's MESSAGE_DELETE does.
      expect(seen.get(recent[1] ?? "")).toMatchObject({ content: "two", author_id: leaver.userId, guild_id: second.guildId })
      expect(seen.get(recent[2] ?? "")).toMatchObject({ content: "three", author_id: leaver.userId })
      const deadline = Date.now() + 20_000
      while ((yield* countOf(api.databaseUrl, leaver.userId)) > 0 && Date.now() < deadline) yield* Effect.sleep("250 millis")
      assert.strictEqual(yield* countOf(api.databaseUrl, leaver.userId), 0)
      const jobs = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM message_deletion_jobs WHERE user_id = $1", [leaver.userId])
      assert.strictEqual(jobs[0]?.n, 0)
      // Done, the job leaves the user's own view too.
      const shownUntil = Date.now() + 10_000
      while ((yield* pending) !== null && Date.now() < shownUntil) yield* Effect.sleep("100 millis")
      assert.isNull(yield* pending)

      // The windows agree: only others' messages are left.
      assert.deepStrictEqual(idsOf(yield* api.request("GET", `/channels/${first.channelId}/messages`, { token: first.owner.token })), [othersMessage])
      assert.deepStrictEqual(idsOf(yield* api.request("GET", `/channels/${second.channelId}/messages`, { token: second.owner.token })), [])
      const after = yield* api.request("POST", "/users/@me/messages/delete/test", { token: leaver.token })
      assert.deepStrictEqual(after.body, { channel_count: 0, message_count: 0 })
    }))

  it.effect("a job whose claimer died is resumed when its lease runs out", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const user = yield* memberWith(guildId, CHAT)
      const ids = [yield* sent(user.token, channelId, "a"), yield* sent(user.token, channelId, "b")]
      const asked = yield* api.request("POST", "/users/@me/messages/delete", { token: user.token, body: { password: PASSWORD } })
      assert.strictEqual(asked.status, 204, JSON.stringify(asked.body))
      // As if another process claimed it and died: nobody takes it until the lease is over.
      yield* queryAt(api.databaseUrl, "UPDATE message_deletion_jobs SET scheduled_at = now(), claimed_until = now() + interval '4 seconds' WHERE user_id = $1", [user.userId])
      yield* Effect.sleep("2 seconds")
      assert.strictEqual(yield* countOf(api.databaseUrl, user.userId), 2)
      const deadline = Date.now() + 20_000
      while ((yield* countOf(api.databaseUrl, user.userId)) > 0 && Date.now() < deadline) yield* Effect.sleep("250 millis")
      assert.strictEqual(yield* countOf(api.databaseUrl, user.userId), 0)
      const page = idsOf(yield* api.request("GET", `/channels/${channelId}/messages`, { token: owner.token }))
      assert.isFalse(page.some((id) => ids.includes(id)))
    }))
})
