import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { createInvite } from "../invites/Fixtures.ts"
import { auditEntriesOfType } from "../support/Audit.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { createGuild } from "../support/Cast.ts"
import { eventually } from "../support/Cluster.ts"
import { connect, dataOf, type GatewayClient, gatewayUrl, identified, identifyWith, nextMatching, nextOfType } from "./Client.ts"

const GUILDS = 1

const isOf = (userId: string) => (d: unknown) => typeof d === "object" && d !== null && "user_id" in d && d.user_id === userId

/** The next VOICE_STATE_UPDATE about `userId`, as a record. */
const voiceOf = (client: GatewayClient, userId: string) =>
  Effect.map(nextMatching(client, "VOICE_STATE_UPDATE", isOf(userId)), dataOf)

/** Op 4 into `channelId` of `guildId` (null leaves). */
const joinVoice = (client: GatewayClient, guildId: string, channelId: string | null, self: { mute?: boolean; deaf?: boolean } = {}) =>
  client.send({ op: 4, d: { guild_id: guildId, channel_id: channelId, self_mute: self.mute ?? false, self_deaf: self.deaf ?? false } })

/** A channel of the owner's guild; its id. */
const createChannel = (token: string, guildId: string, body: Record<string, unknown>) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("POST", `/guilds/${guildId}/channels`, { token, body })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return field(reply.body, "id")
  })

/**
 * An owner's guild with members (joined through an invite) and voice channels:
 * two open ones, one @everyone may see but not connect to, one for a single user.
 */
const voiceGuild = (members: number) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const owner = yield* api.register()
    const { guildId, channelId } = yield* createGuild(owner.token)
    const code = yield* createInvite(owner.token, channelId)
    const joined: Array<{ token: string; userId: string }> = []
    for (let i = 0; i < members; i++) {
      const member = yield* api.register()
      assert.strictEqual((yield* api.request("POST", `/invites/${code}`, { token: member.token })).status, 200)
      joined.push(member)
    }
    const voice = (name: string, extra: Record<string, unknown> = {}) => createChannel(owner.token, guildId, { type: 2, name, ...extra })
    const lounge = yield* voice("Lounge")
    const stage = yield* voice("Stage")
    const locked = yield* voice("Locked", {
      permission_overwrites: [{ id: guildId, type: 0, allow: "0", deny: Permission.CONNECT.toString() }]
    })
    const booth = yield* voice("Booth", { user_limit: 1 })
    return { api, owner, members: joined, guildId, lounge, stage, locked, booth }
  })

/** Identifies and waits for the guild's GUILD_CREATE: the client, its session id and that GUILD_CREATE's data. */
const session = (token: string, guildId: string) =>
  Effect.gen(function*() {
    const { client, ready } = yield* identified(token)
    const create = yield* nextMatching(client, "GUILD_CREATE", (d) => typeof d === "object" && d !== null && "id" in d && d.id === guildId)
    return { client, sessionId: field(ready, "session_id"), create: dataOf(create) }
  })

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("voice states", (it) => {
  it.effect("op 4 joins, moves and leaves; refused joins change nothing; GUILD_CREATE carries voice_states; closing leaves", () =>
    Effect.gen(function*() {
      const { owner, members: [member, other], guildId, lounge, stage, locked, booth } = yield* voiceGuild(2)
      if (member === undefined || other === undefined) throw new Error("two members")
      const watcher = yield* session(owner.token, guildId)
      expect(watcher.create.voice_states).toEqual([])
      const { client: memberSide, sessionId } = yield* session(member.token, guildId)
      const otherSide = (yield* session(other.token, guildId)).client

      // Nobody may connect to Locked: ignored, not a disconnect; the next join is the first state anyone hears of.
      joinVoice(memberSide, guildId, locked)
      joinVoice(memberSide, guildId, lounge, { mute: true })
      const joined = yield* voiceOf(watcher.client, member.userId)
      expect(joined).toMatchObject({
        guild_id: guildId,
        channel_id: lounge,
        user_id: member.userId,
        session_id: sessionId,
        mute: false,
        deaf: false,
        self_mute: true,
        self_deaf: false,
        self_video: false,
        suppress: false,
        member: { user: { id: member.userId } }
      })
      // The member's own session hears its state too.
      expect(yield* voiceOf(memberSide, member.userId)).toMatchObject({ channel_id: lounge, session_id: sessionId })

      // A new session gets the guild with who is in voice (the members travel apart).
      const later = yield* session(owner.token, guildId)
      expect(later.create.voice_states).toEqual([
        expect.objectContaining({ user_id: member.userId, channel_id: lounge, session_id: sessionId, self_mute: true })
      ])
      expect((later.create.voice_states as ReadonlyArray<object>)[0]).not.toHaveProperty("member")
      // A session that did not ask for GUILD_VOICE_STATES gets none.
      const guildsOnly = (yield* identifyWith(owner.token, { intents: GUILDS })).client
      expect(dataOf(yield* nextOfType(guildsOnly, "GUILD_CREATE"))).not.toHaveProperty("voice_states")

      // Deafening oneself in the same channel, then moving.
      joinVoice(memberSide, guildId, lounge, { mute: true, deaf: true })
      expect(yield* voiceOf(watcher.client, member.userId)).toMatchObject({ channel_id: lounge, self_deaf: true })
      joinVoice(memberSide, guildId, booth)
      expect(yield* voiceOf(watcher.client, member.userId)).toMatchObject({ channel_id: booth, self_mute: false, self_deaf: false })

      // Booth holds one: the other member is refused, then joins Stage; the owner (MOVE_MEMBERS) gets into the full Booth.
      joinVoice(otherSide, guildId, booth)
      joinVoice(otherSide, guildId, stage)
      expect(yield* voiceOf(watcher.client, other.userId)).toMatchObject({ channel_id: stage })
      joinVoice(later.client, guildId, booth)
      expect(yield* voiceOf(watcher.client, owner.userId)).toMatchObject({ channel_id: booth, session_id: later.sessionId })

      // Leaving with channel_id null; the channel is free again.
      joinVoice(otherSide, guildId, null)
      expect(yield* voiceOf(watcher.client, other.userId)).toMatchObject({ channel_id: null, user_id: other.userId })

      // The member's session ends: they leave voice, and a later GUILD_CREATE has the owner alone.
      memberSide.close(1000)
      expect(yield* voiceOf(watcher.client, member.userId)).toMatchObject({ channel_id: null, session_id: sessionId })
      const last = yield* session(owner.token, guildId)
      expect(last.create.voice_states).toEqual([expect.objectContaining({ user_id: owner.userId, channel_id: booth })])
    }))

  it.effect("a moderator moves, mutes and disconnects a member; MOVE_MEMBERS, the target's CONNECT and being in voice are checked", () =>
    Effect.gen(function*() {
      const { api, owner, members: [member, plain], guildId, lounge, stage, locked } = yield* voiceGuild(2)
      if (member === undefined || plain === undefined) throw new Error("two members")
      const watcher = (yield* session(owner.token, guildId)).client
      const { client: memberSide, sessionId } = yield* session(member.token, guildId)
      const path = `/guilds/${guildId}/members/${member.userId}`

      // Not in voice: whoever may not move them hears so first; whoever may hears USER_NOT_IN_VOICE. Nothing is audited.
      expectError(yield* api.request("PATCH", path, { token: plain.token, body: { channel_id: stage } }), 403, "MISSING_PERMISSIONS")
      expectError(yield* api.request("PATCH", path, { token: owner.token, body: { channel_id: stage } }), 400, "USER_NOT_IN_VOICE")
      expectError(yield* api.request("PATCH", path, { token: owner.token, body: { channel_id: null } }), 400, "USER_NOT_IN_VOICE")
      expect(yield* auditEntriesOfType(guildId, 26)).toEqual([])

      joinVoice(memberSide, guildId, lounge)
      expect(yield* voiceOf(watcher, member.userId)).toMatchObject({ channel_id: lounge })
      expect(yield* voiceOf(memberSide, member.userId)).toMatchObject({ channel_id: lounge })

      expectError(yield* api.request("PATCH", path, { token: plain.token, body: { channel_id: stage } }), 403, "MISSING_PERMISSIONS")
      // The member could not connect to Locked themselves: nobody moves them there.
      expectError(yield* api.request("PATCH", path, { token: owner.token, body: { channel_id: locked } }), 403, "MISSING_PERMISSIONS")

      const moved = yield* api.request("PATCH", path, { token: owner.token, body: { channel_id: stage } })
      assert.strictEqual(moved.status, 200, JSON.stringify(moved.body))
      expect(moved.body).toMatchObject({ user: { id: member.userId } })
      expect(yield* voiceOf(watcher, member.userId)).toMatchObject({ channel_id: stage, session_id: sessionId })
      expect(yield* voiceOf(memberSide, member.userId)).toMatchObject({ channel_id: stage })
      expect(yield* auditEntriesOfType(guildId, 26)).toMatchObject([{ user_id: owner.userId, options: { channel_id: stage, count: "1" } }])

      // A server mute reaches the state (and stays on the member).
      const muted = yield* api.request("PATCH", path, { token: owner.token, body: { mute: true } })
      assert.strictEqual(muted.status, 200, JSON.stringify(muted.body))
      expect(yield* voiceOf(watcher, member.userId)).toMatchObject({ channel_id: stage, mute: true, deaf: false, member: { mute: true } })
      // Rejoining keeps the server mute.
      joinVoice(memberSide, guildId, lounge)
      expect(yield* voiceOf(watcher, member.userId)).toMatchObject({ channel_id: lounge, mute: true })

      const out = yield* api.request("PATCH", path, { token: owner.token, body: { channel_id: null } })
      assert.strictEqual(out.status, 200, JSON.stringify(out.body))
      expect(yield* voiceOf(watcher, member.userId)).toMatchObject({ channel_id: null, user_id: member.userId })
      expect(yield* auditEntriesOfType(guildId, 27)).toMatchObject([{ user_id: owner.userId }])
      expectError(yield* api.request("PATCH", path, { token: owner.token, body: { channel_id: lounge } }), 400, "USER_NOT_IN_VOICE")

      // A moderator given MOVE_MEMBERS by a role moves too.
      const role = yield* api.request("POST", `/guilds/${guildId}/roles`, {
        token: owner.token,
        body: { name: "movers", permissions: Permission.MOVE_MEMBERS.toString() }
      })
      assert.strictEqual(role.status, 200, JSON.stringify(role.body))
      const given = yield* api.request("PUT", `/guilds/${guildId}/members/${plain.userId}/roles/${field(role.body, "id")}`, { token: owner.token })
      assert.strictEqual(given.status, 204, JSON.stringify(given.body))
      joinVoice(memberSide, guildId, lounge)
      expect(yield* voiceOf(watcher, member.userId)).toMatchObject({ channel_id: lounge })
      const byRole = yield* api.request("PATCH", path, { token: plain.token, body: { channel_id: stage } })
      assert.strictEqual(byRole.status, 200, JSON.stringify(byRole.body))
      expect(yield* voiceOf(watcher, member.userId)).toMatchObject({ channel_id: stage })
    }))

  it.effect("a kicked member and a deleted channel's occupants leave voice", () =>
    Effect.gen(function*() {
      const { api, owner, members: [member, other], guildId, lounge, stage } = yield* voiceGuild(2)
      if (member === undefined || other === undefined) throw new Error("two members")
      const watcher = (yield* session(owner.token, guildId)).client
      const memberSide = (yield* session(member.token, guildId)).client
      const otherSide = (yield* session(other.token, guildId)).client
      joinVoice(memberSide, guildId, lounge)
      expect(yield* voiceOf(watcher, member.userId)).toMatchObject({ channel_id: lounge })
      joinVoice(otherSide, guildId, stage)
      expect(yield* voiceOf(watcher, other.userId)).toMatchObject({ channel_id: stage })

      const kicked = yield* api.request("DELETE", `/guilds/${guildId}/members/${member.userId}`, { token: owner.token })
      assert.strictEqual(kicked.status, 204, JSON.stringify(kicked.body))
      expect(yield* voiceOf(watcher, member.userId)).toMatchObject({ channel_id: null })

      const deleted = yield* api.request("DELETE", `/channels/${stage}`, { token: owner.token })
      assert.strictEqual(deleted.status, 204, JSON.stringify(deleted.body))
      expect(yield* voiceOf(watcher, other.userId)).toMatchObject({ channel_id: null })
      const later = yield* session(owner.token, guildId)
      expect(later.create.voice_states).toEqual([])
    }))

  it.effect("losing CONNECT where one is disconnects: a role taken away, a timeout, the channel's overwrites, @everyone's permissions", () =>
    Effect.gen(function*() {
      const { api, owner, members: [member, other, third], guildId, lounge, stage } = yield* voiceGuild(3)
      if (member === undefined || other === undefined || third === undefined) throw new Error("three members")
      const watcher = (yield* session(owner.token, guildId)).client
      const memberSide = (yield* session(member.token, guildId)).client
      const otherSide = (yield* session(other.token, guildId)).client
      const thirdSide = (yield* session(third.token, guildId)).client

      // Club: only its role connects (the role grants nothing else).
      const role = yield* api.request("POST", `/guilds/${guildId}/roles`, { token: owner.token, body: { name: "club" } })
      assert.strictEqual(role.status, 200, JSON.stringify(role.body))
      const club = field(role.body, "id")
      const room = yield* createChannel(owner.token, guildId, {
        type: 2,
        name: "Club",
        permission_overwrites: [
          { id: guildId, type: 0, allow: "0", deny: Permission.CONNECT.toString() },
          { id: club, type: 0, allow: Permission.CONNECT.toString(), deny: "0" }
        ]
      })
      const membership = `/guilds/${guildId}/members/${member.userId}/roles/${club}`
      assert.strictEqual((yield* api.request("PUT", membership, { token: owner.token })).status, 204)

      joinVoice(memberSide, guildId, room)
      expect(yield* voiceOf(watcher, member.userId)).toMatchObject({ channel_id: room })
      joinVoice(otherSide, guildId, lounge)
      expect(yield* voiceOf(watcher, other.userId)).toMatchObject({ channel_id: lounge })
      joinVoice(thirdSide, guildId, stage)
      expect(yield* voiceOf(watcher, third.userId)).toMatchObject({ channel_id: stage })
      joinVoice(watcher, guildId, room)
      expect(yield* voiceOf(watcher, owner.userId)).toMatchObject({ channel_id: room })

      const taken = yield* api.request("DELETE", membership, { token: owner.token })
      assert.strictEqual(taken.status, 204, JSON.stringify(taken.body))
      expect(yield* voiceOf(watcher, member.userId)).toMatchObject({ channel_id: null, user_id: member.userId })
      // Their own session hears it too (after its join, still unread there).
      const left = (d: unknown) => isOf(member.userId)(d) && typeof d === "object" && d !== null && "channel_id" in d && d.channel_id === null
      yield* nextMatching(memberSide, "VOICE_STATE_UPDATE", left)

      const until = new Date(Date.now() + 3_600_000).toISOString()
      const timedOut = yield* api.request("PATCH", `/guilds/${guildId}/members/${other.userId}`, {
        token: owner.token,
        body: { communication_disabled_until: until }
      })
      assert.strictEqual(timedOut.status, 200, JSON.stringify(timedOut.body))
      expect(yield* voiceOf(watcher, other.userId)).toMatchObject({ channel_id: null, user_id: other.userId })
      // Timed out, they cannot come back either: their op 4 is ignored, the member's next one is what is heard.
      joinVoice(otherSide, guildId, lounge)
      joinVoice(memberSide, guildId, lounge)
      expect(yield* nextMatching(watcher, "VOICE_STATE_UPDATE", () => true).pipe(Effect.map(dataOf))).toMatchObject({
        user_id: member.userId,
        channel_id: lounge
      })

      const closed = yield* api.request("PUT", `/channels/${stage}/permissions/${guildId}`, {
        token: owner.token,
        body: { type: 0, allow: "0", deny: Permission.CONNECT.toString() }
      })
      assert.strictEqual(closed.status, 204, JSON.stringify(closed.body))
      expect(yield* voiceOf(watcher, third.userId)).toMatchObject({ channel_id: null, user_id: third.userId })

      // @everyone without CONNECT: the member in Lounge goes; the owner in Club stays.
      const roles = yield* api.request("GET", `/guilds/${guildId}/roles`, { token: owner.token })
      const everyone = (roles.body as ReadonlyArray<{ id: string; permissions: string }>).find((r) => r.id === guildId)
      if (everyone === undefined) throw new Error("no @everyone role")
      const lowered = yield* api.request("PATCH", `/guilds/${guildId}/roles/${guildId}`, {
        token: owner.token,
        body: { permissions: (BigInt(everyone.permissions) & ~Permission.CONNECT).toString() }
      })
      assert.strictEqual(lowered.status, 200, JSON.stringify(lowered.body))
      expect(yield* voiceOf(watcher, member.userId)).toMatchObject({ channel_id: null })
      const later = yield* session(owner.token, guildId)
      expect(later.create.voice_states).toEqual([expect.objectContaining({ user_id: owner.userId, channel_id: room })])
    }))

  it.effect("the member in a voice state follows GUILD_MEMBER_UPDATE: the next VOICE_STATE_UPDATE has the new nick and roles", () =>
    Effect.gen(function*() {
      const { api, owner, members: [member], guildId, lounge } = yield* voiceGuild(1)
      if (member === undefined) throw new Error("a member")
      const watcher = (yield* session(owner.token, guildId)).client
      const memberSide = (yield* session(member.token, guildId)).client
      joinVoice(memberSide, guildId, lounge)
      expect(yield* voiceOf(watcher, member.userId)).toMatchObject({ channel_id: lounge, member: { roles: [] } })

      const renamed = yield* api.request("PATCH", `/guilds/${guildId}/members/${member.userId}`, { token: owner.token, body: { nick: "Echo" } })
      assert.strictEqual(renamed.status, 200, JSON.stringify(renamed.body))
      const role = yield* api.request("POST", `/guilds/${guildId}/roles`, { token: owner.token, body: { name: "singers" } })
      assert.strictEqual(role.status, 200, JSON.stringify(role.body))
      const singers = field(role.body, "id")
      const given = yield* api.request("PUT", `/guilds/${guildId}/members/${member.userId}/roles/${singers}`, { token: owner.token })
      assert.strictEqual(given.status, 204, JSON.stringify(given.body))

      // The member's own mute toggled: each op 4 is a VOICE_STATE_UPDATE; the update is taken up right after its event.
      let muted = false
      const toggled = Effect.suspend(() => {
        muted = !muted
        joinVoice(memberSide, guildId, lounge, { mute: muted })
        return voiceOf(watcher, member.userId)
      })
      const seen = yield* eventually("the member in the voice state", toggled, (d) => {
        const m = d.member as { nick?: string | null; roles: ReadonlyArray<string> }
        return m.nick === "Echo" && m.roles.includes(singers)
      }, 10)
      expect(seen).toMatchObject({ channel_id: lounge, member: { user: { id: member.userId }, nick: "Echo", roles: [singers] } })
      // Still in voice: a nick or a role that takes nothing away disconnects nobody.
      const later = yield* session(owner.token, guildId)
      expect(later.create.voice_states).toEqual([expect.objectContaining({ user_id: member.userId, channel_id: lounge })])
    }))

  it.effect("a malformed op 4 closes with 4002; op 4 before IDENTIFY with 4003", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const { client } = yield* identified(token)
      client.send({ op: 4, d: { guild_id: "not a snowflake", channel_id: null } })
      assert.strictEqual((yield* client.closed).code, 4002)
      const early = yield* connect(yield* gatewayUrl(token))
      yield* early.next
      early.send({ op: 4, d: { guild_id: "1", channel_id: null, self_mute: false, self_deaf: false } })
      assert.strictEqual((yield* early.closed).code, 4003)
    }))
})
