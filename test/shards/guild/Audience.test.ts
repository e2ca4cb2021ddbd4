import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { GuildEvents } from "../../../shards/guild/Events.ts"
import { routedEvents } from "../../../shards/Relay.ts"
import { GuildId } from "../../../src/model/Ids.ts"
import { admission, audienceOf, dataForAudience, membershipOf } from "../../../shards/guild/Audience.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import { SharedMap } from "../../../shards/guild/SharedMap.ts"
import { createGuild, type GuildState } from "../../../shards/guild/State.ts"
import type { GuildMemberResponse, GuildRoleResponse } from "../../../src/model/Guilds.ts"
import type { GuildChannel } from "../../../shards/guild/channels/GuildChannel.ts"

const user = (id: string) => ({ id, username: `u${id}`, discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 })
const base = createGuild({ guildId: "100", channelId: "101", owner: user("1"), name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })
const member = (id: string, roles: ReadonlyArray<string> = []): [string, GuildMemberResponse] =>
  [id, { user: user(id), roles, joined_at: "2026-01-02T00:00:00.000Z", mute: false, deaf: false }]
const moderator: GuildRoleResponse = {
  id: "10", name: "mod", color: 0, position: 1, permissions: Permission.BAN_MEMBERS.toString(), hoist: false, mentionable: false
}
const hidden: GuildChannel = {
  id: "200", guild_id: "100", name: "staff", topic: null, type: 0, position: 1, parent_id: null, nsfw: false,
  permission_overwrites: [{ id: "100", type: 0, allow: "0", deny: Permission.VIEW_CHANNEL.toString() }, { id: "2", type: 1, allow: Permission.VIEW_CHANNEL.toString(), deny: "0" }]
}

/** Owner 1, member 2 (may see the staff channel), moderator 3, and members 4 to 9. */
const state: GuildState = {
  ...base,
  roles: new Map([...base.roles, [moderator.id, moderator]]),
  channels: new Map([...base.channels, [hidden.id, hidden]]),
  members: SharedMap.from([...base.members, member("2"), member("3", ["10"]), ...["4", "5", "6", "7", "8", "9"].map((id) => member(id))])
}
const who = (event: { type: string; data: unknown }) => {
  const admits = admission(audienceOf(state, event))
  return ["1", "2", "3", "4", "5", "6", "7", "8", "9"].filter(admits)
}

describe("the audience of a guild event", () => {
  it("is every member for guild-wide events and channels all may see", () => {
    assert.deepStrictEqual(audienceOf(state, { type: "GUILD_UPDATE", data: {} }), { kind: "members" })
    assert.deepStrictEqual(audienceOf(state, { type: "MESSAGE_CREATE", data: { channel_id: "101" } }), { kind: "members" })
  })

  it("is those with VIEW_CHANNEL for a channel and what happens in it", () => {
    assert.deepStrictEqual(who({ type: "CHANNEL_CREATE", data: hidden }), ["1", "2"])
    assert.deepStrictEqual(who({ type: "MESSAGE_CREATE", data: { channel_id: "200" } }), ["1", "2"])
    assert.deepStrictEqual(audienceOf(state, { type: "TYPING_START", data: { channel_id: "200" } }), { kind: "only", users: ["1", "2"] })
  })

  it("lists the shorter side: all but a few are named by those left out", () => {
    const mostly: GuildChannel = { ...hidden, id: "201", permission_overwrites: [{ id: "4", type: 1, allow: "0", deny: Permission.VIEW_CHANNEL.toString() }] }
    const audience = audienceOf({ ...state, channels: new Map([...state.channels, [mostly.id, mostly]]) }, { type: "MESSAGE_CREATE", data: { channel_id: "201" } })
    assert.deepStrictEqual(audience, { kind: "except", users: ["4"] })
  })

  it("is nobody for a channel it does not know, those who may ban for bans, those who manage the channel for invites", () => {
    assert.deepStrictEqual(who({ type: "MESSAGE_CREATE", data: { channel_id: "999" } }), [])
    assert.deepStrictEqual(who({ type: "GUILD_BAN_ADD", data: { user: user("9") } }), ["1", "3"])
    assert.deepStrictEqual(who({ type: "INVITE_CREATE", data: { channel_id: "101", code: "x" } }), ["1"])
    assert.deepStrictEqual(audienceOf(undefined, { type: "CHANNEL_DELETE", data: hidden }), { kind: "only", users: [] })
  })

  it("gives members GUILD_UPDATE without the owner's permissions and channel list", () => {
    const guild = { id: "100", name: "G", permissions: "8", channels: [hidden] }
    assert.deepStrictEqual(dataForAudience({ type: "GUILD_UPDATE", data: guild }), { id: "100", name: "G" })
    assert.strictEqual(dataForAudience({ type: "CHANNEL_CREATE", data: hidden }), hidden)
  })

  it("names the member an event adds or removes", () => {
    assert.deepStrictEqual(membershipOf({ type: "GUILD_MEMBER_ADD", data: { guild_id: "100", user: user("4") } }), { userId: "4", joined: true })
    assert.deepStrictEqual(membershipOf({ type: "GUILD_MEMBER_REMOVE", data: { guild_id: "100", user: user("4") } }), { userId: "4", joined: false })
    assert.isUndefined(membershipOf({ type: "GUILD_MEMBER_UPDATE", data: { user: user("4") } }))
  })
})

describe("a guild event routed to the gateway", () => {
  // The fault test of a shard paused past its lease lost a MESSAGE_CREATE: the guild's actor
  // moved away right after committing it, and the relay, reading the live actor's state, found none.
  it.effect("is routed with the guild its change left, whether or not the actor still lives", () =>
    Effect.gen(function*() {
      const events = yield* GuildEvents
      const next = yield* routedEvents
      yield* events.publish(GuildId.make("100"), [{ type: "MESSAGE_CREATE", data: { channel_id: "200" } }], state)
      const [routed] = yield* next
      assert.isDefined(routed)
      const admits = admission(routed.audience)
      assert.deepStrictEqual(["1", "2", "3", "4"].filter(admits), ["1", "2"])
    }).pipe(Effect.scoped, Effect.provide(GuildEvents.layer)))
})
