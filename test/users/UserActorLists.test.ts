import { assert, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { createECDH, randomBytes, randomUUID } from "node:crypto"
import { utcWall } from "../messages/Fixtures.ts"
import { field } from "../support/Api.ts"
import { clusterJson, clusterRegister, eventually, restartableServer } from "../support/Cluster.ts"
import { queryAt } from "../support/Postgres.ts"
import { stopProcess } from "../support/Processes.ts"

const browserKeys = () => {
  const ecdh = createECDH("prime256v1")
  ecdh.generateKeys()
  return { p256dh: ecdh.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") }
}

/**
 * The user's saved messages, push subscriptions and scheduled messages live
 * in their actor's memory (shards/user/Lists.ts). Across a restart of the
 * server the actor loads them again from Postgres and lists the same; a
 * scheduled send lost between the guild's commit and its outcome (the state a
 * crash there leaves in Postgres) is finished under its first operation,
 * never sent twice.
 */
it.live("the user's lists read the same after a restart, and a send lost before its outcome is not made twice", () =>
  Effect.gen(function*() {
    const { base, databaseUrl, start } = yield* restartableServer({ SCHEDULED_MESSAGE_SWEEP_SECONDS: "1" })
    const first = yield* start

    const { token } = yield* clusterRegister(base, `l${randomUUID().slice(0, 8)}@example.com`)
    const call = (method: string, path: string, body?: unknown) => clusterJson(`${base}${path}`, { method, token, body })
    const guild = yield* call("POST", "/guilds", { name: "Lists" })
    const channelId = (guild.body as { channels: ReadonlyArray<{ id: string }> }).channels[0]?.id ?? ""
    const older = field((yield* call("POST", `/channels/${channelId}/messages`, { content: "older" })).body, "id")
    const newer = field((yield* call("POST", `/channels/${channelId}/messages`, { content: "newer" })).body, "id")
    for (const messageId of [newer, older]) {
      assert.strictEqual((yield* call("POST", "/users/@me/saved-messages", { channel_id: channelId, message_id: messageId })).status, 204)
    }
    const endpoint = `https://push.example.com/send/${randomUUID()}`
    const subscribed = yield* call("POST", "/users/@me/push/subscribe", { endpoint, keys: browserKeys(), user_agent: "Firefox" })
    assert.strictEqual(subscribed.status, 200, JSON.stringify(subscribed.body))
    const later = yield* call("POST", `/channels/${channelId}/messages/schedule`, {
      content: "later",
      scheduled_local_at: utcWall(Date.now() + 86_400_000),
      timezone: "UTC"
    })
    assert.strictEqual(later.status, 201, JSON.stringify(later.body))
    const soon = yield* call("POST", `/channels/${channelId}/messages/schedule`, {
      content: "soon",
      scheduled_local_at: utcWall(Date.now() + 1_500),
      timezone: "UTC"
    })
    const soonId = field(soon.body, "id")
    const soonRow = Effect.map(
      queryAt(databaseUrl, "SELECT status, message_id::text AS message_id FROM scheduled_messages WHERE id = $1", [soonId]),
      (rows) => rows[0]
    )
    const sentRow = yield* eventually("sent", soonRow, (row) => row?.status === "sent")

    const lists = Effect.all({
      saved: Effect.map(call("GET", "/users/@me/saved-messages"), (r) => r.body),
      push: Effect.map(call("GET", "/users/@me/push/subscriptions"), (r) => r.body),
      scheduled: Effect.map(call("GET", "/users/@me/scheduled-messages"), (r) => r.body)
    })
    const before = yield* lists
    expect(before.saved).toMatchObject([{ message_id: older, status: "available" }, { message_id: newer, status: "available" }])
    expect(before.push).toMatchObject({ subscriptions: [{ subscription_id: field(subscribed.body, "subscription_id"), user_agent: "Firefox" }] })
    expect(before.scheduled).toMatchObject([{ id: field(later.body, "id"), status: "scheduled" }, { id: soonId, status: "sent" }])
    yield* stopProcess(first.child)

    // What a crash after the guild's commit and before the outcome's leaves: due again, under the send's operation.
    yield* queryAt(databaseUrl, "UPDATE scheduled_messages SET status = 'scheduled', message_id = NULL, claimed_until = NULL WHERE id = $1", [soonId])
    yield* start
    yield* eventually("sent again", soonRow, (row) => row?.status === "sent")
    assert.deepStrictEqual(yield* soonRow, sentRow)
    const copies = yield* queryAt(databaseUrl, "SELECT count(*)::int AS n FROM messages WHERE channel_id = $1 AND content = 'soon'", [channelId])
    assert.deepStrictEqual(copies, [{ n: 1 }])
    assert.deepStrictEqual(yield* lists, before)
  }).pipe(Effect.scoped), { timeout: 120_000 })
