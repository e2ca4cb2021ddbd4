import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { User } from "../../../shards/user/Protocol.ts"
import { CarriedId } from "../../../src/model/Ids.ts"
import { ActorCluster, DatabaseUrl } from "../../support/ActorCluster.ts"
import { queryAt } from "../../support/Postgres.ts"

/**
 * The user actor's lists (shards/user/Lists.ts) driven directly, for what
 * the HTTP edge cannot time: a session signed out between the route's check
 * and the commit, writes that arrive at one instant, and the sweep's claims.
 */
layer(ActorCluster, { timeout: 60_000, excludeTestServices: true })("the user actor's lists", (it) => {
  /** A user row, and a session of theirs (its token hash in hex). */
  const userWithSession = (userId: string) =>
    Effect.gen(function*() {
      const url = yield* DatabaseUrl
      yield* queryAt(url, "INSERT INTO users (id, username, discriminator) VALUES ($1, $2, '0001')", [userId, `user${userId}`])
      const sessionHash = randomBytes(32).toString("hex")
      yield* queryAt(url, "INSERT INTO sessions (token_hash, user_id) VALUES (decode($1, 'hex'), $2)", [sessionHash, userId])
      const actor = (yield* User.client)(userId)
      let operations = 0
      const write = (command: Parameters<typeof actor.Write>[0]["command"], now = Date.now()) =>
        Effect.map(actor.Write({ operationId: `${userId}-${++operations}`, actorId: userId, now, command }), (json): unknown => JSON.parse(json))
      const read = (query: Parameters<typeof actor.Read>[0]["query"]) =>
        Effect.map(actor.Read({ viewerId: userId, query }), (json): unknown => JSON.parse(json))
      return { url, sessionHash, write, read }
    })

  const device = (sessionHash: string, id = randomBytes(16).toString("hex")) => ({
    _tag: "SubscribePush" as const,
    id,
    sessionHash,
    endpoint: `https://push.example.com/${id}`,
    p256dh: "key",
    auth: "secret",
    userAgent: null
  })

  it.effect("a subscription whose session is gone by the commit is refused by its foreign key, and the list does not take it", () =>
    Effect.gen(function*() {
      const { url, sessionHash, write, read } = yield* userWithSession("7001")
      const refused = yield* Effect.flip(write(device(randomBytes(32).toString("hex"))))
      expect(refused).toMatchObject({ _tag: "BadRequest", code: "CONFLICT" })
      assert.deepStrictEqual(yield* read({ _tag: "ListPushSubscriptions" }), { subscriptions: [] })

      const id = yield* write(device(sessionHash))
      assert.deepStrictEqual(yield* read({ _tag: "ListPushSubscriptions" }), { subscriptions: [{ subscription_id: id, user_agent: null }] })
      assert.deepStrictEqual(yield* queryAt(url, "SELECT id FROM push_subscriptions WHERE user_id = 7001"), [{ id }])
    }))

  it.effect("saves made at one instant keep the order they were made in, as Postgres stores it", () =>
    Effect.gen(function*() {
      const { url, write, read } = yield* userWithSession("7002")
      yield* queryAt(url, "INSERT INTO channels (id, type, name) VALUES (7100, 0, 'saved')")
      const now = Date.now()
      // Higher ids first: were the instants equal, the list would show the lower id on top.
      for (const messageId of ["7203", "7202", "7201"]) yield* write({ _tag: "SaveMessage", channelId: "7100", messageId }, now)
      const expected = ["7201", "7202", "7203"]
      const listed = (yield* read({ _tag: "ListSaved", limit: 10 })) as ReadonlyArray<{ messageId: string }>
      assert.deepStrictEqual(listed.map((s) => s.messageId), expected)
      const stored = yield* queryAt(url, `SELECT message_id::text AS id FROM saved_messages WHERE user_id = 7002
        ORDER BY saved_at DESC, message_id DESC`)
      assert.deepStrictEqual(stored.map((row) => row.id), expected)
    }))

  it.effect("the sweep's claim: one operation for every attempt, no edit after it, and a settled message is told to Postgres again", () =>
    Effect.gen(function*() {
      const { url, write, read } = yield* userWithSession("7003")
      const timing = { request: { content: "later" }, scheduledAt: Date.now() + 60_000, scheduledLocalAt: "x", timezone: "UTC" }
      const place = { channelId: CarriedId.ChannelId.make("7300"), guildId: CarriedId.GuildId.make("7399") }
      yield* write({ _tag: "ScheduleMessage", id: "7301", ...place, ...timing })
      const first = yield* write({ _tag: "ClaimScheduledMessage", id: "7301", operationId: "9001" })
      expect(first).toMatchObject({ operationId: "9001", guildId: "7399", channelId: "7300", request: { content: "later" } })
      // A claim after a crash (the lease ran out) sends under the first claim's operation.
      expect(yield* write({ _tag: "ClaimScheduledMessage", id: "7301", operationId: "9002" })).toMatchObject({ operationId: "9001" })
      const edit = yield* Effect.flip(write({ _tag: "UpdateScheduledMessage", id: "7301", ...timing }))
      expect(edit).toMatchObject({ _tag: "BadRequest", errors: [{ code: "INVALID_SCHEDULED_MESSAGE_PAYLOAD" }] })

      yield* write({ _tag: "ScheduledMessageSent", id: "7301", messageId: "7302" })
      expect(yield* read({ _tag: "GetScheduledMessage", id: "7301" })).toMatchObject({ id: "7301", status: "sent" })
      const row = "SELECT status, message_id::text AS message_id, send_operation_id::text AS op FROM scheduled_messages WHERE id = 7301"
      assert.deepStrictEqual(yield* queryAt(url, row), [{ status: "sent", message_id: "7302", op: "9001" }])

      // Put back as due behind the actor's back: the claim sends nothing and Postgres hears the status again.
      yield* queryAt(url, "UPDATE scheduled_messages SET status = 'scheduled', message_id = NULL WHERE id = 7301")
      assert.isNull(yield* write({ _tag: "ClaimScheduledMessage", id: "7301", operationId: "9003" }))
      assert.deepStrictEqual(yield* queryAt(url, row), [{ status: "sent", message_id: "7302", op: "9001" }])
    }))
})
