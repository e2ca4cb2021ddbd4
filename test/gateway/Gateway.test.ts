import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { createInvite, guildOfTwo } from "../invites/Fixtures.ts"
import { createApplication } from "../oauth2/Fixtures.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { createGuild, newMember } from "../support/Cast.ts"
import { connect, dataOf, gatewayUrl, identified, identifyAt, nextOfType } from "./Client.ts"

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("the gateway", (it) => {
  it.effect("GET /gateway and /gateway/bot hand out this deployment's ws:// URL; no token is 401", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const url = yield* gatewayUrl(token)
      assert.strictEqual(url, `${api.baseUrl.replace("http://", "ws://")}/gateway/socket`)
      const bot = yield* api.request("GET", "/v1/gateway/bot", { token })
      assert.strictEqual(bot.status, 200, JSON.stringify(bot.body))
      expect(bot.body).toMatchObject({ url, shards: 1, session_start_limit: { max_concurrency: 1 } })
      expectError(yield* api.request("GET", "/gateway"), 401, "UNAUTHORIZED")
      expectError(yield* api.request("GET", "/gateway/socket"), 400, "INVALID_REQUEST")
    }))

  it.effect("HELLO, IDENTIFY, READY with the guilds as stubs, then one GUILD_CREATE per guild", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId } = yield* api.register()
      const { guildId: first } = yield* createGuild(token, "First")
      const { guildId: second } = yield* createGuild(token, "Second")
      const client = yield* connect(`${yield* gatewayUrl(token)}?v=1&encoding=json`)
      const hello = yield* client.next
      assert.strictEqual(hello.op, 10)
      expect(hello.d).toMatchObject({ heartbeat_interval: 41250 })
      client.send({ op: 2, d: { token, properties: { os: "linux", browser: "test", device: "test" } } })
      const ready = yield* client.dispatch
      assert.strictEqual(ready.t, "READY")
      assert.strictEqual(ready.s, 1)
      const data = dataOf(ready)
      expect(data).toMatchObject({ user: { id: userId }, private_channels: [], relationships: [] })
      expect(data.guilds).toEqual(expect.arrayContaining([{ id: first, unavailable: true }, { id: second, unavailable: true }]))
      assert.strictEqual(typeof data.session_id, "string")
      assert.strictEqual(data.resume_gateway_url, yield* gatewayUrl(token))
      const creates = [yield* client.dispatch, yield* client.dispatch]
      assert.deepStrictEqual(creates.map((c) => c.t), ["GUILD_CREATE", "GUILD_CREATE"])
      assert.deepStrictEqual(creates.map((c) => c.s), [2, 3])
      assert.sameMembers(creates.map((c) => dataOf(c).id), [first, second])
      expect(creates.map((c) => dataOf(c).name)).toEqual(expect.arrayContaining(["First", "Second"]))

      const stats = yield* api.request("GET", "/admin/gateway/stats", { token: `Admin ${api.adminKey}` })
      assert.strictEqual(stats.status, 200, JSON.stringify(stats.body))
      expect((stats.body as { sessions: number }).sessions).toBeGreaterThanOrEqual(1)
    }))

  it.effect("a bot identifies with its bare token (as bot libraries send it); READY names its application", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const app = yield* createApplication(owner.token)
      const bot = yield* api.request("GET", "/gateway/bot", { token: app.botToken })
      assert.strictEqual(bot.status, 200, JSON.stringify(bot.body))
      const { ready } = yield* identifyAt(`${field(bot.body, "url")}?v=1&encoding=json`, app.botToken.slice("Bot ".length))
      expect(ready).toMatchObject({ user: { id: app.id, bot: true }, application: { id: app.id } })
    }))

  it.effect("a heartbeat is acknowledged", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const { client } = yield* identified(token)
      client.send({ op: 1, d: 1 })
      assert.strictEqual((yield* client.next).op, 11)
    }))

  it.effect("a bad token closes with 4004; a second IDENTIFY with 4005; an op before IDENTIFY with 4003", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const url = yield* gatewayUrl(token)
      const bad = yield* connect(url)
      yield* bad.next
      bad.send({ op: 2, d: { token: "not-a-token", properties: {} } })
      assert.strictEqual((yield* bad.closed).code, 4004)

      const { client } = yield* identified(token)
      client.send({ op: 2, d: { token, properties: {} } })
      assert.strictEqual((yield* client.closed).code, 4005)

      const early = yield* connect(url)
      yield* early.next
      early.send({ op: 8, d: { guild_id: "1", query: "", limit: 0 } })
      assert.strictEqual((yield* early.closed).code, 4003)
    }))

  it.effect("bad frames: unknown opcode 4001, not JSON 4002, wrong version 4012", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const url = yield* gatewayUrl(token)
      const unknownOp = yield* connect(url)
      yield* unknownOp.next
      unknownOp.send({ op: 42, d: null })
      assert.strictEqual((yield* unknownOp.closed).code, 4001)
      const garbage = yield* connect(url)
      yield* garbage.next
      garbage.sendRaw("{not json")
      assert.strictEqual((yield* garbage.closed).code, 4002)
      const version = yield* connect(`${url}?v=9&encoding=json`)
      assert.strictEqual((yield* version.next).op, 10)
      assert.strictEqual((yield* version.closed).code, 4012)
    }))

  it.effect("changes made over REST arrive as dispatches", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const { guildId } = yield* createGuild(token)
      const { client } = yield* identified(token)
      assert.strictEqual((yield* client.dispatch).t, "GUILD_CREATE")
      const renamed = yield* api.request("PATCH", `/guilds/${guildId}`, { token, body: { name: "Renamed" } })
      assert.strictEqual(renamed.status, 200, JSON.stringify(renamed.body))
      const update = yield* client.dispatch
      assert.strictEqual(update.t, "GUILD_UPDATE")
      expect(update.d).toMatchObject({ id: guildId, name: "Renamed" })
      const channel = yield* api.request("POST", `/guilds/${guildId}/channels`, { token, body: { type: 0, name: "news" } })
      assert.strictEqual(channel.status, 200, JSON.stringify(channel.body))
      const created = yield* client.dispatch
      assert.strictEqual(created.t, "CHANNEL_CREATE")
      expect(created.d).toMatchObject({ id: field(channel.body, "id"), name: "news", guild_id: guildId })
    }))

  it.effect("what clients read: GUILD_CREATE's own member, message events' author member, MESSAGE_DELETE's content and author", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId, channelId } = yield* createGuild(owner.token)
      const member = yield* newMember(guildId, Permission.VIEW_CHANNEL | Permission.SEND_MESSAGES)
      const watcher = (yield* identified(owner.token)).client
      yield* nextOfType(watcher, "GUILD_CREATE")

      // Available, when they joined, and their own member: discord.js's guild.available and guild.members.me.
      const { client } = yield* identified(member.token)
      const guild = dataOf(yield* nextOfType(client, "GUILD_CREATE"))
      expect(guild).toMatchObject({
        id: guildId,
        unavailable: false,
        large: false,
        member_count: 2,
        emojis: [],
        stickers: [],
        // Not large: every member, their own first.
        members: [{ user: { id: member.userId }, roles: [member.roleId], mute: false, deaf: false }, { user: { id: owner.userId } }]
      })
      assert.lengthOf(guild.members as ReadonlyArray<unknown>, 2)
      assert.strictEqual(guild.joined_at, (guild.members as ReadonlyArray<{ joined_at: string }>)[0]?.joined_at)
      assert.isFalse(Number.isNaN(Date.parse(String(guild.joined_at))), String(guild.joined_at))

      // The author's member rides along (without `user`: the message has its author), as discord.js's message.member.
      const authorMember = { roles: [member.roleId], joined_at: guild.joined_at }
      const posted = yield* api.request("POST", `/channels/${channelId}/messages`, { token: member.token, body: { content: "hi" } })
      assert.strictEqual(posted.status, 200, JSON.stringify(posted.body))
      const messageId = field(posted.body, "id")
      const created = dataOf(yield* nextOfType(watcher, "MESSAGE_CREATE"))
      expect(created).toMatchObject({ id: messageId, guild_id: guildId, author: { id: member.userId }, member: authorMember })
      assert.notProperty(created.member, "user")

      const edited = yield* api.request("PATCH", `/channels/${channelId}/messages/${messageId}`, { token: member.token, body: { content: "edited" } })
      assert.strictEqual(edited.status, 200, JSON.stringify(edited.body))
      const updated = dataOf(yield* nextOfType(watcher, "MESSAGE_UPDATE"))
      expect(updated).toMatchObject({ id: messageId, content: "edited", member: authorMember })
      assert.notProperty(updated.member, "user")

      const removed = yield* api.request("DELETE", `/channels/${channelId}/messages/${messageId}`, { token: member.token })
      assert.strictEqual(removed.status, 204, JSON.stringify(removed.body))
      expect(dataOf(yield* nextOfType(watcher, "MESSAGE_DELETE"))).toEqual({
        id: messageId,
        channel_id: channelId,
        guild_id: guildId,
        content: "edited",
        author_id: member.userId
      })
    }))

  it.effect("a member who cannot view a channel does not hear of it; joining and leaving come as GUILD_CREATE and GUILD_DELETE", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const member = yield* api.register()
      const { guildId, channelId } = yield* createGuild(owner.token)
      const code = yield* createInvite(owner.token, channelId)
      const ownerSide = (yield* identified(owner.token)).client
      assert.strictEqual((yield* ownerSide.dispatch).t, "GUILD_CREATE")
      const memberSide = (yield* identified(member.token)).client

      const joined = yield* api.request("POST", `/invites/${code}`, { token: member.token })
      assert.strictEqual(joined.status, 200, JSON.stringify(joined.body))
      const create = yield* memberSide.dispatch
      assert.strictEqual(create.t, "GUILD_CREATE")
      expect(create.d).toMatchObject({ id: guildId })
      const added = yield* ownerSide.dispatch
      assert.strictEqual(added.t, "GUILD_MEMBER_ADD")
      expect(added.d).toMatchObject({ guild_id: guildId, user: { id: member.userId } })

      const hidden = yield* api.request("POST", `/guilds/${guildId}/channels`, {
        token: owner.token,
        body: { type: 0, name: "staff", permission_overwrites: [{ id: guildId, type: 0, deny: String(Permission.VIEW_CHANNEL) }] }
      })
      assert.strictEqual(hidden.status, 200, JSON.stringify(hidden.body))
      const seen = yield* ownerSide.dispatch
      assert.strictEqual(seen.t, "CHANNEL_CREATE")
      expect(seen.d).toMatchObject({ id: field(hidden.body, "id") })
      const renamed = yield* api.request("PATCH", `/guilds/${guildId}`, { token: owner.token, body: { name: "After" } })
      assert.strictEqual(renamed.status, 200, JSON.stringify(renamed.body))
      // The member's next dispatch is the rename: the hidden channel never reached them.
      const next = yield* memberSide.dispatch
      assert.strictEqual(next.t, "GUILD_UPDATE")
      expect(next.d).toMatchObject({ name: "After" })
      expect(next.d).not.toHaveProperty("channels")

      const kicked = yield* api.request("DELETE", `/guilds/${guildId}/members/${member.userId}`, { token: owner.token })
      assert.strictEqual(kicked.status, 204, JSON.stringify(kicked.body))
      const gone = yield* memberSide.dispatch
      assert.strictEqual(gone.t, "GUILD_DELETE")
      assert.deepStrictEqual(gone.d, { id: guildId })
      assert.deepStrictEqual([(yield* ownerSide.dispatch).t, (yield* ownerSide.dispatch).t], ["GUILD_UPDATE", "GUILD_MEMBER_REMOVE"])
    }))

  it.effect("RESUME replays exactly the dispatches missed while the connection was down, in order", () =>
    Effect.gen(function*() {
      const { api, owner, guildId } = yield* guildOfTwo
      const { client: first, ready } = yield* identified(owner.token)
      assert.strictEqual((yield* first.dispatch).s, 2)
      // A second session of the same user hears the same events: once it has them, so has the first one's buffer.
      const { client: witness } = yield* identified(owner.token)
      yield* witness.dispatch
      first.close(4000)
      yield* first.closed

      const names = ["One", "Two"]
      for (const name of names) {
        const reply = yield* api.request("PATCH", `/guilds/${guildId}`, { token: owner.token, body: { name } })
        assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      }
      const channel = yield* api.request("POST", `/guilds/${guildId}/channels`, { token: owner.token, body: { type: 0, name: "x" } })
      assert.strictEqual(channel.status, 200, JSON.stringify(channel.body))
      const heard = [yield* witness.dispatch, yield* witness.dispatch, yield* witness.dispatch]
      assert.deepStrictEqual(heard.map((f) => f.t), ["GUILD_UPDATE", "GUILD_UPDATE", "CHANNEL_CREATE"])

      const again = yield* connect(String(ready.resume_gateway_url))
      assert.strictEqual((yield* again.next).op, 10)
      again.send({ op: 6, d: { token: owner.token, session_id: ready.session_id, seq: 2 } })
      const replayed = [yield* again.dispatch, yield* again.dispatch, yield* again.dispatch, yield* again.dispatch]
      assert.deepStrictEqual(replayed.map((f) => f.t), ["GUILD_UPDATE", "GUILD_UPDATE", "CHANNEL_CREATE", "RESUMED"])
      assert.deepStrictEqual(replayed.map((f) => f.s), [3, 4, 5, 6])
      assert.deepStrictEqual(replayed.slice(0, 2).map((f) => dataOf(f).name), names)

      // A session that is gone, or a seq from the future, is refused.
      const unknownSession = yield* connect(String(ready.resume_gateway_url))
      yield* unknownSession.next
      unknownSession.send({ op: 6, d: { token: owner.token, session_id: "nope", seq: 1 } })
      const invalid = yield* unknownSession.next
      assert.deepStrictEqual([invalid.op, invalid.d], [9, false])
      const ahead = yield* connect(String(ready.resume_gateway_url))
      yield* ahead.next
      ahead.send({ op: 6, d: { token: owner.token, session_id: ready.session_id, seq: 99 } })
      assert.strictEqual((yield* ahead.closed).code, 4007)
    }))

  it.effect("more than 120 payloads in a minute close with 4008; a payload over 4096 bytes with 4002", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const { client } = yield* identified(token)
      for (let i = 0; i < 121; i++) client.send({ op: 1, d: null })
      assert.strictEqual((yield* client.closed).code, 4008)

      const big = yield* connect(yield* gatewayUrl(token))
      yield* big.next
      big.send({ op: 1, d: "x".repeat(5000) })
      assert.strictEqual((yield* big.closed).code, 4002)
    }))

  it.effect("compress=zlib-stream sends every frame as the next piece of one zlib stream", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const { client } = yield* identified(token, "?v=1&encoding=json&compress=zlib-stream")
      client.send({ op: 1, d: 1 })
      assert.strictEqual((yield* client.next).op, 11)
    }))
})

layer(TestApi.layerWith({ GATEWAY_HEARTBEAT_INTERVAL_MS: "300" }), { timeout: 60_000, excludeTestServices: true })(
  "the gateway's heartbeat timeout",
  (it) => {
    it.effect("a client that stops heartbeating is closed with 4009", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const { token } = yield* api.register()
        // Before connecting: the server's timer starts with HELLO, before IDENTIFY is answered.
        const started = Date.now()
        const { client } = yield* identified(token)
        assert.strictEqual((yield* client.closed).code, 4009)
        expect(Date.now() - started).toBeGreaterThanOrEqual(300)
      }))
  }
)
