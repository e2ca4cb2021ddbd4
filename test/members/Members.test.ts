import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { randomUUID } from "node:crypto"
import { expectError, TestApi } from "../support/Api.ts"
import { auditEntriesOfType } from "../support/Audit.ts"
import { addRole, createGuild, joinGuild, reload } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"

const MODERATOR = Permission.MANAGE_NICKNAMES | Permission.MANAGE_ROLES | Permission.MODERATE_MEMBERS | Permission.MUTE_MEMBERS |
  Permission.DEAFEN_MEMBERS | Permission.MOVE_MEMBERS | Permission.KICK_MEMBERS

/** An owner, a moderator (rank 5), a peer of the moderator (rank 5), a target (rank 1) and a plain member. */
const setup = Effect.gen(function*() {
  const api = yield* TestApi
  const owner = yield* api.register()
  const mod = yield* api.register()
  const peer = yield* api.register()
  const target = yield* api.register({ global_name: `Target ${randomUUID().slice(0, 6)}` })
  const plain = yield* api.register()
  const stranger = yield* api.register()
  const { guildId } = yield* createGuild(owner.token)
  const modRole = yield* addRole(guildId, MODERATOR, 5)
  const lowRole = yield* addRole(guildId, 0n, 1)
  const highRole = yield* addRole(guildId, 0n, 9)
  yield* joinGuild(guildId, mod.userId, [modRole])
  yield* joinGuild(guildId, peer.userId, [modRole])
  yield* joinGuild(guildId, target.userId, [lowRole])
  yield* joinGuild(guildId, plain.userId)
  yield* reload(guildId)
  return { api, owner, mod, peer, target, plain, stranger, guildId, modRole, lowRole, highRole }
})

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString()

layer(TestApi.layer, { timeout: 180_000, excludeTestServices: true })("guild members over HTTP", (it) => {
  it.effect("a moderator renames, mutes, times out and re-roles a member below them, audited and kept", () =>
    Effect.gen(function*() {
      const { api, mod, target, guildId, lowRole, modRole } = yield* setup
      const path = `/guilds/${guildId}/members/${target.userId}`
      const updated = yield* api.request("PATCH", path, {
        token: mod.token,
        headers: { "x-audit-log-reason": "be%20nice" },
        body: { nick: "Nicky", mute: true, deaf: true }
      })
      assert.strictEqual(updated.status, 200, JSON.stringify(updated.body))
      expect(updated.body).toMatchObject({ user: { id: target.userId }, nick: "Nicky", mute: true, deaf: true, roles: [lowRole] })

      const until = inDays(1)
      const timedOut = yield* api.request("PATCH", path, { token: mod.token, body: { communication_disabled_until: until } })
      assert.strictEqual(timedOut.status, 200, JSON.stringify(timedOut.body))
      expect(timedOut.body).toMatchObject({ communication_disabled_until: until })

      // Owner grants a role below the moderator's: audited as a role update.
      const lower = yield* addRole(guildId, 0n, 2)
      yield* reload(guildId)
      const reRoled = yield* api.request("PATCH", path, { token: mod.token, body: { roles: [lower] } })
      assert.strictEqual(reRoled.status, 200, JSON.stringify(reRoled.body))
      expect(reRoled.body).toMatchObject({ roles: [lower] })

      const updates = yield* auditEntriesOfType(guildId, 24)
      assert.strictEqual(updates.length, 2)
      expect(updates[0]).toMatchObject({
        user_id: mod.userId,
        target_id: target.userId,
        reason: "be nice",
        changes: [
          { key: "nick", old_value: null, new_value: "Nicky" },
          { key: "mute", old_value: false, new_value: true },
          { key: "deaf", old_value: false, new_value: true }
        ]
      })
      expect(updates[1]).toMatchObject({ changes: [{ key: "communication_disabled_until", old_value: null, new_value: until }] })
      const roleUpdates = yield* auditEntriesOfType(guildId, 25)
      expect(roleUpdates).toMatchObject([{ target_id: target.userId, changes: [{ key: "roles", new_value: { added: [lower], removed: [lowRole] } }] }])

      // Kept: the actor reloads from Postgres and answers the same member.
      yield* reload(guildId)
      const got = yield* api.request("GET", path, { token: mod.token })
      expect(got.body).toMatchObject({ nick: "Nicky", mute: true, deaf: true, roles: [lower] })
      assert.strictEqual(Date.parse(String((got.body as Record<string, unknown>).communication_disabled_until)), Date.parse(until))
      // The moderator's own role stays theirs: nobody may hand out a role at their own rank.
      const same = yield* api.request("PATCH", path, { token: mod.token, body: { roles: [modRole] } })
      assert.strictEqual(same.status, 403)
    }))

  it.effect("rejects bad member updates with the validation codes of part A", () =>
    Effect.gen(function*() {
      const { api, mod, target, guildId } = yield* setup
      const path = `/guilds/${guildId}/members/${target.userId}`
      const cases: ReadonlyArray<readonly [unknown, string | undefined]> = [
        [{ communication_disabled_until: inDays(400) }, "TIMEOUT_CANNOT_EXCEED_365_DAYS"],
        [{ communication_disabled_until: "not a date" }, "INVALID_ISO_TIMESTAMP"],
        [{ roles: ["123"] }, "INVALID_ROLE_ID"],
        [{ roles: [guildId] }, "INVALID_ROLE_ID"],
        [{ channel_id: "123" }, "CHANNEL_NOT_FOUND"],
        [{ nick: "x".repeat(33) }, undefined],
        [{ accent_color: 16777216 }, undefined],
        [{ roles: "nope" }, undefined]
      ]
      for (const [body, code] of cases) {
        const reply = yield* api.request("PATCH", path, { token: mod.token, body })
        assert.strictEqual(reply.status, 400, JSON.stringify([body, reply.body]))
        expect(reply.body).toMatchObject({ code: "INVALID_FORM_BODY" })
        if (code !== undefined) expect(reply.body).toMatchObject({ errors: [{ code }] })
      }
      assert.strictEqual((yield* auditEntriesOfType(guildId, 24)).length, 0)
    }))

  it.effect("enforces permissions and the role hierarchy", () =>
    Effect.gen(function*() {
      const { api, owner, mod, peer, target, plain, stranger, guildId, highRole } = yield* setup
      const patch = (token: string, userId: string, body: unknown) =>
        api.request("PATCH", `/guilds/${guildId}/members/${userId}`, { token, body })
      const denied = [
        yield* patch(plain.token, target.userId, { nick: "no" }),
        yield* patch(plain.token, target.userId, { mute: true }),
        yield* patch(mod.token, peer.userId, { nick: "same rank" }),
        yield* patch(mod.token, owner.userId, { communication_disabled_until: inDays(1) }),
        yield* patch(mod.token, target.userId, { roles: [highRole] }),
        yield* patch(plain.token, target.userId, { bio: "not theirs" }),
        yield* patch(mod.token, peer.userId, { bio: "same rank" })
      ]
      for (const reply of denied) {
        assert.strictEqual(reply.status, 403, JSON.stringify(reply.body))
        expect(reply.body).toMatchObject({ code: "MISSING_PERMISSIONS" })
      }
      const outsider = yield* patch(stranger.token, target.userId, { nick: "x" })
      expectError(outsider, 403, "MISSING_ACCESS")
      const nobody = yield* patch(mod.token, stranger.userId, { nick: "x" })
      expectError(nobody, 404, "UNKNOWN_MEMBER")
      // The owner outranks everyone.
      const byOwner = yield* patch(owner.token, peer.userId, { nick: "Peer" })
      assert.strictEqual(byOwner.status, 200)
      assert.strictEqual((yield* auditEntriesOfType(guildId, 24)).length, 1)
    }))

  // Moving a member who is in voice, and its audit entry: test/gateway/Voice.test.ts.
  it.effect("a voice move is checked (MOVE_MEMBERS, a voice channel) before the member is found not in voice", () =>
    Effect.gen(function*() {
      const { api, mod, plain, target, guildId } = yield* setup
      const voice = "920000000000000001"
      const text = "920000000000000002"
      yield* queryAt(api.databaseUrl, "INSERT INTO channels (id, guild_id, type, name) VALUES ($1, $2, 2, 'Voice'), ($3, $2, 0, 'text')", [
        voice,
        guildId,
        text
      ])
      yield* reload(guildId)
      const path = `/guilds/${guildId}/members/${target.userId}`
      expectError(yield* api.request("PATCH", path, { token: mod.token, body: { channel_id: voice } }), 400, "USER_NOT_IN_VOICE")
      expect(yield* auditEntriesOfType(guildId, 26)).toEqual([])
      const wrong = yield* api.request("PATCH", path, { token: mod.token, body: { channel_id: text } })
      assert.strictEqual(wrong.status, 400)
      expect(wrong.body).toMatchObject({ errors: [{ path: "channel_id", code: "CHANNEL_MUST_BE_VOICE" }] })
      const forbidden = yield* api.request("PATCH", path, { token: plain.token, body: { channel_id: voice } })
      assert.strictEqual(forbidden.status, 403)
    }))

  it.effect("PATCH @me changes one's own nick and profile; CHANGE_NICKNAME and timeouts apply", () =>
    Effect.gen(function*() {
      const { api, mod, plain, guildId } = yield* setup
      const path = `/guilds/${guildId}/members/@me`
      const mine = yield* api.request("PATCH", path, {
        token: plain.token,
        body: { nick: "Me", bio: "hello there", pronouns: "they/them", accent_color: 255 }
      })
      assert.strictEqual(mine.status, 200, JSON.stringify(mine.body))
      expect(mine.body).toMatchObject({ user: { id: plain.userId }, nick: "Me", accent_color: 255 })
      expect(yield* auditEntriesOfType(guildId, 24)).toMatchObject([{
        user_id: plain.userId,
        target_id: plain.userId,
        changes: [
          { key: "nick", new_value: "Me" },
          { key: "accent_color", new_value: 255 },
          { key: "bio", new_value: "hello there" },
          { key: "pronouns", new_value: "they/them" }
        ]
      }])
      const stored = yield* queryAt(api.databaseUrl, "SELECT bio, pronouns FROM guild_members WHERE guild_id = $1 AND user_id = $2", [
        guildId,
        plain.userId
      ])
      expect(stored).toMatchObject([{ bio: "hello there", pronouns: "they/them" }])

      for (const body of [{ bio: "b".repeat(321) }, { pronouns: "" }, { avatar: "not base64!" }]) {
        const bad = yield* api.request("PATCH", path, { token: plain.token, body })
        assert.strictEqual(bad.status, 400, JSON.stringify([body, bad.body]))
      }

      // Timed out: they may look, not act, not even on their own nick.
      const timeout = yield* api.request("PATCH", `/guilds/${guildId}/members/${plain.userId}`, {
        token: mod.token,
        body: { communication_disabled_until: inDays(1) }
      })
      assert.strictEqual(timeout.status, 200, JSON.stringify(timeout.body))
      const silenced = yield* api.request("PATCH", path, { token: plain.token, body: { nick: "Loud" } })
      expectError(silenced, 403, "MISSING_PERMISSIONS")
      const seen = yield* api.request("GET", path.replace("/@me", `/${plain.userId}`), { token: plain.token })
      assert.strictEqual(seen.status, 200)

      // Without CHANGE_NICKNAME in @everyone, a member cannot rename themselves.
      yield* queryAt(api.databaseUrl, "UPDATE guild_roles SET permissions = 0 WHERE id = $1", [guildId])
      yield* reload(guildId)
      const modOwn = yield* api.request("PATCH", path, { token: mod.token, body: { nick: "Boss" } })
      assert.strictEqual(modOwn.status, 200, "MANAGE_NICKNAMES covers one's own nick")
      const other = yield* api.register()
      yield* joinGuild(guildId, other.userId)
      yield* reload(guildId)
      const denied = yield* api.request("PATCH", path, { token: other.token, body: { nick: "Nope" } })
      assert.strictEqual(denied.status, 403)
    }))

  it.effect("kicks with KICK_MEMBERS below one's rank, never the owner; the user's guild list follows", () =>
    Effect.gen(function*() {
      const { api, owner, mod, peer, target, plain, guildId } = yield* setup
      const kick = (token: string, userId: string) =>
        api.request("DELETE", `/guilds/${guildId}/members/${userId}`, { token, headers: { "x-audit-log-reason": "spam" } })
      const before = yield* api.request("GET", "/users/@me/guilds", { token: target.token })
      expect(before.body).toMatchObject([{ id: guildId }])

      for (const [token, userId] of [[plain.token, target.userId], [mod.token, peer.userId], [mod.token, owner.userId]] as const) {
        const denied = yield* kick(token, userId)
        assert.strictEqual(denied.status, 403, JSON.stringify(denied.body))
        expect(denied.body).toMatchObject({ code: "MISSING_PERMISSIONS" })
      }
      const kicked = yield* kick(mod.token, target.userId)
      assert.strictEqual(kicked.status, 204, JSON.stringify(kicked.body))
      expect(yield* auditEntriesOfType(guildId, 20)).toMatchObject([{ user_id: mod.userId, target_id: target.userId, reason: "spam" }])
      const gone = yield* api.request("GET", `/guilds/${guildId}/members/${target.userId}`, { token: mod.token })
      assert.strictEqual(gone.status, 404)
      const after = yield* api.request("GET", "/users/@me/guilds", { token: target.token })
      assert.deepStrictEqual(after.body, [])
      const again = yield* kick(mod.token, target.userId)
      expectError(again, 404, "UNKNOWN_MEMBER")
      const rows = yield* queryAt(api.databaseUrl, "SELECT 1 FROM guild_members WHERE guild_id = $1 AND user_id = $2", [guildId, target.userId])
      assert.strictEqual(rows.length, 0)
      const badId = yield* kick(mod.token, "abc")
      assert.strictEqual(badId.status, 400)
    }))

  it.effect("a member leaves; the owner cannot", () =>
    Effect.gen(function*() {
      const { api, owner, plain, stranger, guildId } = yield* setup
      const left = yield* api.request("DELETE", `/users/@me/guilds/${guildId}`, { token: plain.token })
      assert.strictEqual(left.status, 204, JSON.stringify(left.body))
      const list = yield* api.request("GET", "/users/@me/guilds", { token: plain.token })
      assert.deepStrictEqual(list.body, [])
      const view = yield* api.request("GET", `/guilds/${guildId}`, { token: plain.token })
      assert.strictEqual(view.status, 403)
      const ownerLeaves = yield* api.request("DELETE", `/users/@me/guilds/${guildId}`, { token: owner.token })
      assert.strictEqual(ownerLeaves.status, 400)
      expect(ownerLeaves.body).toMatchObject({ errors: [{ code: "CANNOT_LEAVE_GUILD_AS_OWNER" }] })
      const outsider = yield* api.request("DELETE", `/users/@me/guilds/${guildId}`, { token: stranger.token })
      assert.strictEqual(outsider.status, 403)
      const badId = yield* api.request("DELETE", "/users/@me/guilds/abc", { token: plain.token })
      assert.strictEqual(badId.status, 400)
    }))

  it.effect("searches members by name, role and join time, for moderators", () =>
    Effect.gen(function*() {
      const { api, owner, mod, target, plain, guildId, lowRole } = yield* setup
      const search = (token: string, body: unknown) => api.request("POST", `/guilds/${guildId}/members-search`, { token, body })
      const all = yield* search(owner.token, {})
      assert.strictEqual(all.status, 200, JSON.stringify(all.body))
      expect(all.body).toMatchObject({ guild_id: guildId, total_result_count: 5, page_result_count: 5, indexing: false })

      const named = yield* search(mod.token, { query: "target " })
      expect(named.body).toMatchObject({
        total_result_count: 1,
        members: [{ id: `${guildId}:${target.userId}`, user_id: target.userId, role_ids: [lowRole], is_bot: false }]
      })
      const byRole = yield* search(mod.token, { role_ids: [lowRole], limit: 1 })
      expect(byRole.body).toMatchObject({ total_result_count: 1, members: [{ user_id: target.userId }] })
      const future = yield* search(mod.token, { joined_at_gte: Math.floor(Date.now() / 1000) + 3600 })
      expect(future.body).toMatchObject({ total_result_count: 0, members: [] })
      const paged = yield* search(mod.token, { limit: 2, offset: 4, sort_order: "asc" })
      expect(paged.body).toMatchObject({ total_result_count: 5, page_result_count: 1 })

      for (const body of [{ limit: 0 }, { limit: 101 }, { sort_by: "name" }, { role_ids: ["x"] }]) {
        const bad = yield* search(mod.token, body)
        assert.strictEqual(bad.status, 400, JSON.stringify([body, bad.body]))
      }
      const notMod = yield* search(plain.token, {})
      expectError(notMod, 403, "MISSING_PERMISSIONS")
    }))
})
