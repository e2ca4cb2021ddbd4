import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { MAX_GROUP_DMS_PER_USER } from "../../shards/dm/GroupDmLimit.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"
import { ok, request, type User, user } from "./Fixtures.ts"

let nextSeedBase = 7_100_000_000_000_000_000n

const friends = (a: User, b: User) =>
  Effect.gen(function*() {
    ok(yield* request("POST", `/users/@me/relationships/${b.userId}`, a.token))
    ok(yield* request("PUT", `/users/@me/relationships/${a.userId}`, b.token, {}))
  })

/**
 * Puts `who` in `count` group DMs of their own, written straight to Postgres (making
 * that many through the API would only be slower); answers the first one's id.
 */
const seedGroupDms = (who: User, count: number) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const base = (nextSeedBase += 1_000_000n).toString()
    const series = `FROM generate_series(1, $2::int) AS g`
    yield* queryAt(api.databaseUrl, `INSERT INTO channels (id, guild_id, type) SELECT $1::bigint + g, NULL, 3 ${series}`, [base, count])
    yield* queryAt(api.databaseUrl, `INSERT INTO dm_channels (channel_id, owner_id) SELECT $1::bigint + g, $3 ${series}`, [
      base,
      count,
      who.userId
    ])
    yield* queryAt(api.databaseUrl, `INSERT INTO dm_recipients (channel_id, user_id) SELECT $1::bigint + g, $3 ${series}`, [
      base,
      count,
      who.userId
    ])
    return (BigInt(base) + 1n).toString()
  })

const groupDmsOf = (who: User) =>
  Effect.flatMap(TestApi, (api) =>
    Effect.map(
      queryAt(
        api.databaseUrl,
        "SELECT count(*)::int AS n FROM dm_recipients r JOIN channels c ON c.id = r.channel_id WHERE r.user_id = $1 AND c.type = 3",
        [who.userId]
      ),
      (rows) => Number(rows[0]?.n)
    ))

layer(TestApi.layer, { timeout: 180_000, excludeTestServices: true })("the number of group DMs a user may be in", (it) => {
  it.effect("creating a group DM: refused when the creator or a recipient is at the limit, nothing made", () =>
    Effect.gen(function*() {
      const alice = yield* user
      const bob = yield* user
      const carol = yield* user
      yield* friends(alice, bob)
      yield* friends(alice, carol)

      // One below the limit: Bob still has room for this one.
      yield* seedGroupDms(bob, MAX_GROUP_DMS_PER_USER - 1)
      const group = ok(yield* request("POST", "/users/@me/channels", alice.token, { recipients: [bob.userId] }))
      assert.strictEqual(yield* groupDmsOf(bob), MAX_GROUP_DMS_PER_USER)

      // Now Bob is at it: a group DM with him is refused, and none is made for the others either.
      const refused = yield* request("POST", "/users/@me/channels", alice.token, { recipients: [carol.userId, bob.userId] })
      expectError(refused, 400, "MAX_GROUP_DMS")
      assert.strictEqual(yield* groupDmsOf(alice), 1)
      assert.strictEqual(yield* groupDmsOf(carol), 0)

      // The creator counts too.
      expectError(yield* request("POST", "/users/@me/channels", bob.token, { recipients: [alice.userId] }), 400, "MAX_GROUP_DMS")

      // A one-to-one DM is not a group DM: not limited.
      ok(yield* request("POST", "/users/@me/channels", bob.token, { recipient_id: carol.userId }))
      // Leaving a group makes room again.
      ok(yield* request("DELETE", `/channels/${field(group, "id")}`, bob.token), 204)
      ok(yield* request("POST", "/users/@me/channels", alice.token, { recipients: [carol.userId, bob.userId] }))
    }))

  it.effect("adding a recipient: refused when they are at the limit, until they leave one", () =>
    Effect.gen(function*() {
      const alice = yield* user
      const bob = yield* user
      const carol = yield* user
      yield* friends(alice, bob)
      yield* friends(alice, carol)
      const channelId = field(ok(yield* request("POST", "/users/@me/channels", alice.token, { recipients: [carol.userId] })), "id")
      const seeded = yield* seedGroupDms(bob, MAX_GROUP_DMS_PER_USER)

      expectError(yield* request("PUT", `/channels/${channelId}/recipients/${bob.userId}`, alice.token), 400, "MAX_GROUP_DMS")
      const recipients = (body: unknown) => (body as { recipients: ReadonlyArray<{ id: string }> }).recipients.map((r) => r.id)
      assert.deepStrictEqual(recipients(ok(yield* request("GET", `/channels/${channelId}`, alice.token))), [carol.userId])
      expectError(yield* request("GET", `/channels/${channelId}/messages`, bob.token), 403, "MISSING_ACCESS")

      // Bob leaves one of his groups (the last one out: it goes); now he can be added.
      ok(yield* request("DELETE", `/channels/${seeded}`, bob.token), 204)
      ok(yield* request("PUT", `/channels/${channelId}/recipients/${bob.userId}`, alice.token), 204)
      assert.deepStrictEqual(recipients(ok(yield* request("GET", `/channels/${channelId}`, alice.token))), [carol.userId, bob.userId])
      assert.strictEqual(yield* groupDmsOf(bob), MAX_GROUP_DMS_PER_USER)
    }))

  it.effect("forbidden: only a recipient adds people, and only friends", () =>
    Effect.gen(function*() {
      const alice = yield* user
      const bob = yield* user
      const mallory = yield* user
      yield* friends(alice, bob)
      yield* friends(mallory, bob)
      const channelId = field(ok(yield* request("POST", "/users/@me/channels", alice.token, { recipients: [bob.userId] })), "id")
      expectError(yield* request("PUT", `/channels/${channelId}/recipients/${bob.userId}`, mallory.token), 403, "MISSING_ACCESS")
      expectError(yield* request("PUT", `/channels/${channelId}/recipients/${mallory.userId}`, alice.token), 400, "NOT_FRIENDS_WITH_USER")
      expectError(yield* request("PUT", `/channels/${channelId}/recipients/abc`, alice.token), 400, "INVALID_FORM_BODY")
    }))
})
