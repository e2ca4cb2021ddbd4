import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestApi } from "../support/Api.ts"
import { createGuild } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"
import { connect, dataOf, gatewayUrl, identified, identifyWith, nextOfType } from "./Client.ts"

const GUILDS = 1
const GUILD_MESSAGES = 1 << 9
const BULK_MEMBERS = 1050

const admin = (path: string, guildId: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("POST", path, { token: `Admin ${api.adminKey}`, body: { guild_id: guildId } })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  })

const membersOf = (d: Record<string, unknown>) => {
  const members = d.members
  if (!Array.isArray(members)) throw new Error(`no members in ${JSON.stringify(d).slice(0, 200)}`)
  return members.map((m) => (m as { user: { id: string; username: string } }).user)
}

/**
 * `count` members straight into the guild's rows (users `username` 1..count, ids from `firstId`
 * on), then the guild actor reloaded so that it holds them.
 */
const seedMembers = (databaseUrl: string, guildId: string, seed: { count: number; firstId: string; username: string }) =>
  Effect.gen(function*() {
    yield* queryAt(
      databaseUrl,
      "INSERT INTO users (id, username, discriminator) SELECT $1::bigint + g, $2 || g, '0' FROM generate_series(1, $3::int) g",
      [seed.firstId, seed.username, seed.count]
    )
    yield* queryAt(
      databaseUrl,
      "INSERT INTO guild_members (guild_id, user_id, roles) SELECT $1, $2::bigint + g, '{}' FROM generate_series(1, $3::int) g",
      [guildId, seed.firstId, seed.count]
    )
    yield* admin("/admin/guilds/reload", guildId)
  })

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("gateway requests, intents and the guild's lifecycle", (it) => {
  it.effect("op 8 answers GUILD_MEMBERS_CHUNK of 1,000 from the actor's memory: everyone, a prefix, user ids with presences", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId } = yield* createGuild(owner.token)
      yield* seedMembers(api.databaseUrl, guildId, { count: BULK_MEMBERS, firstId: "7100000000000000000", username: "chunky" })
      const { client } = yield* identified(owner.token)
      yield* nextOfType(client, "GUILD_CREATE")

      client.send({ op: 8, d: { guild_id: guildId, query: "", limit: 0, nonce: "all" } })
      const first = dataOf(yield* nextOfType(client, "GUILD_MEMBERS_CHUNK"))
      const second = dataOf(yield* nextOfType(client, "GUILD_MEMBERS_CHUNK"))
      expect(first).toMatchObject({ guild_id: guildId, chunk_index: 0, chunk_count: 2, nonce: "all" })
      expect(second).toMatchObject({ chunk_index: 1, chunk_count: 2, nonce: "all" })
      assert.strictEqual(membersOf(first).length, 1000)
      assert.strictEqual(membersOf(first).length + membersOf(second).length, BULK_MEMBERS + 1)

      client.send({ op: 8, d: { guild_id: guildId, query: "CHUNKY10", limit: 5 } })
      const prefix = dataOf(yield* nextOfType(client, "GUILD_MEMBERS_CHUNK"))
      const found = membersOf(prefix)
      assert.strictEqual(found.length, 5)
      for (const user of found) assert.isTrue(user.username.startsWith("chunky10"), user.username)

      client.send({ op: 8, d: { guild_id: guildId, user_ids: [owner.userId, "123"], presences: true, nonce: "ids" } })
      const byId = dataOf(yield* nextOfType(client, "GUILD_MEMBERS_CHUNK"))
      expect(byId).toMatchObject({ chunk_count: 1, not_found: ["123"], nonce: "ids" })
      assert.deepStrictEqual(membersOf(byId).map((u) => u.id), [owner.userId])
      expect(byId.presences).toEqual([expect.objectContaining({ user: { id: owner.userId }, status: "online" })])

      // Both a query and user ids, or a limit over 100 for a query: a decode error.
      client.send({ op: 8, d: { guild_id: guildId, query: "a", limit: 101 } })
      assert.strictEqual((yield* client.closed).code, 4002)
    }))

  it.effect("large_threshold: a guild under it lists every member in GUILD_CREATE, one at it or over only the session's own; the threshold is kept within 50 and 250", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId } = yield* createGuild(owner.token)
      const seeded = 60
      yield* seedMembers(api.databaseUrl, guildId, { count: seeded, firstId: "7200000000000000000", username: "quorum" })
      const guildCreateWith = (d: Record<string, unknown>) =>
        Effect.gen(function*() {
          const { client } = yield* identifyWith(owner.token, { intents: GUILDS, ...d })
          const data = dataOf(yield* nextOfType(client, "GUILD_CREATE"))
          return { large: data.large, members: membersOf(data).map((u) => u.id) }
        })
      const everyone = yield* guildCreateWith({})
      assert.isFalse(everyone.large)
      assert.strictEqual(everyone.members.length, seeded + 1)
      assert.deepStrictEqual(yield* guildCreateWith({ large_threshold: 50 }), { large: true, members: [owner.userId] })
      // 10 is taken as 50, 1,000 as 250 (Discord's bounds).
      assert.deepStrictEqual(yield* guildCreateWith({ large_threshold: 10 }), { large: true, members: [owner.userId] })
      assert.isFalse((yield* guildCreateWith({ large_threshold: 1000 })).large)
      // Not a number: the IDENTIFY does not decode.
      const client = yield* connect(`${yield* gatewayUrl(owner.token)}?v=1&encoding=json`)
      assert.strictEqual((yield* client.next).op, 10)
      client.send({ op: 2, d: { token: owner.token, properties: {}, large_threshold: "many" } })
      assert.strictEqual((yield* client.closed).code, 4002)
    }))

  it.effect("intents: a session hears only the guild events it asked for; 0 or none, as the production gateway, all", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId, channelId } = yield* createGuild(owner.token)
      const guildsOnly = (yield* identifyWith(owner.token, { intents: GUILDS })).client
      const withMessages = (yield* identifyWith(owner.token, { intents: GUILDS | GUILD_MESSAGES })).client
      const zero = (yield* identifyWith(owner.token, { intents: 0 })).client
      const none = (yield* identifyWith(owner.token, {})).client
      for (const client of [guildsOnly, withMessages, zero, none]) yield* nextOfType(client, "GUILD_CREATE")

      const posted = yield* api.request("POST", `/channels/${channelId}/messages`, { token: owner.token, body: { content: "hi" } })
      assert.strictEqual(posted.status, 200, JSON.stringify(posted.body))
      const renamed = yield* api.request("PATCH", `/guilds/${guildId}`, { token: owner.token, body: { name: "Later" } })
      assert.strictEqual(renamed.status, 200, JSON.stringify(renamed.body))
      // Without GUILD_MESSAGES the message never comes: the rename is next.
      assert.strictEqual((yield* guildsOnly.dispatch).t, "GUILD_UPDATE")
      for (const client of [withMessages, zero, none]) {
        const heard = yield* client.dispatch
        assert.strictEqual(heard.t, "MESSAGE_CREATE")
        expect(heard.d).toMatchObject({ content: "hi", channel_id: channelId })
      }
      for (const client of [zero, none]) assert.strictEqual((yield* client.dispatch).t, "GUILD_UPDATE")

      // Intents are a non-negative bitfield.
      const bad = yield* connect(yield* gatewayUrl(owner.token))
      yield* bad.next
      bad.send({ op: 2, d: { token: owner.token, properties: {}, intents: -1 } })
      assert.strictEqual((yield* bad.closed).code, 4002)
    }))

  it.effect("the actor reloading sends GUILD_UPDATE; a shutdown GUILD_DELETE unavailable; starting again GUILD_CREATE", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId } = yield* createGuild(owner.token, "Lifecycle")
      const { client } = yield* identified(owner.token)
      yield* nextOfType(client, "GUILD_CREATE")

      yield* admin("/admin/guilds/reload", guildId)
      const update = yield* client.dispatch
      assert.strictEqual(update.t, "GUILD_UPDATE")
      expect(update.d).toMatchObject({ id: guildId, name: "Lifecycle" })

      yield* admin("/admin/guilds/shutdown", guildId)
      const down = yield* client.dispatch
      assert.strictEqual(down.t, "GUILD_DELETE")
      assert.deepStrictEqual(down.d, { id: guildId, unavailable: true })

      yield* admin("/admin/guilds/reload", guildId)
      const back = yield* client.dispatch
      assert.strictEqual(back.t, "GUILD_CREATE")
      expect(back.d).toMatchObject({ id: guildId, name: "Lifecycle", channels: expect.any(Array) })
      // Still subscribed: later changes arrive.
      const renamed = yield* api.request("PATCH", `/guilds/${guildId}`, { token: owner.token, body: { name: "Again" } })
      assert.strictEqual(renamed.status, 200, JSON.stringify(renamed.body))
      expect((yield* client.dispatch).d).toMatchObject({ name: "Again" })

      // Started again by anything, not only a reload: a read loads it, and sessions hear it is back, once.
      yield* admin("/admin/guilds/shutdown", guildId)
      assert.strictEqual((yield* client.dispatch).t, "GUILD_DELETE")
      assert.strictEqual((yield* api.request("GET", `/guilds/${guildId}`, { token: owner.token })).status, 200)
      const again = yield* client.dispatch
      assert.strictEqual(again.t, "GUILD_CREATE")
      expect(again.d).toMatchObject({ id: guildId, name: "Again" })
      yield* admin("/admin/guilds/reload", guildId)
      assert.strictEqual((yield* client.dispatch).t, "GUILD_UPDATE")
    }))
})
