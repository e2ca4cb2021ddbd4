import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { gatewayGuildCreate } from "../../../shards/guild/operations/GatewayGuild.ts"
import * as Members from "../../../shards/guild/operations/Members.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import * as Reads from "../../../shards/guild/Reads.ts"
import { createGuild, type GuildState } from "../../../shards/guild/State.ts"
import * as Views from "../../../shards/guild/Views.ts"
import { viewFor } from "../../../shards/guild/Views.ts"
import { GuildResponse } from "../../../src/model/Guilds.ts"
import { SharedMap } from "../../../shards/guild/SharedMap.ts"
import { CarriedId } from "../../../src/model/Ids.ts"

const user = (id: string) => ({ id, username: `u${id}`, discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 })
const base = createGuild({ guildId: "100", channelId: "101", owner: user("1"), name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })
const withMember = (state: GuildState, id: string): GuildState => ({
  ...state,
  members: SharedMap.from([...state.members, [id, { user: user(id), roles: [], joined_at: "2026-01-02T00:00:00.000Z", mute: false, deaf: false }]])
})

describe("guild reads", () => {
  it.effect("render the member's view as the schema encodes it, with each viewer's permissions", () =>
    Effect.gen(function*() {
      const state = withMember(base, "2")
      for (const viewer of ["1", "2"]) {
        const json = yield* Reads.view(viewer)(state)
        assert.deepStrictEqual(JSON.parse(json), Schema.encodeSync(GuildResponse)(viewFor(state, viewer)))
      }
      const owner = JSON.parse(yield* Reads.view("1")(state))
      const member = JSON.parse(yield* Reads.view("2")(state))
      assert.notStrictEqual(owner.permissions, member.permissions)
    }))

  it.effect("follow a change: a new state renders anew", () =>
    Effect.gen(function*() {
      const before = yield* Reads.view("1")(base)
      const renamed: GuildState = { ...base, guild: { ...base.guild, name: "Renamed" } }
      const after = yield* Reads.view("1")(renamed)
      assert.strictEqual(JSON.parse(before).name, "G")
      assert.strictEqual(JSON.parse(after).name, "Renamed")
    }))

  it.effect("refuse strangers and unknown members as the actor does", () =>
    Effect.gen(function*() {
      const stranger = yield* Effect.flip(Reads.view("9")(base))
      assert.strictEqual(stranger.code, "MISSING_ACCESS")
      const missing = yield* Effect.flip(Members.getMember.run(base, Members.getMember.query.make({ targetId: CarriedId.UserId.make("9") }), "1"))
      assert.strictEqual(missing.code, "UNKNOWN_MEMBER")
      const strangerPage = yield* Effect.flip(Members.listMembers.run(base, Members.listMembers.query.make({ limit: 10 }), "9"))
      assert.strictEqual(strangerPage.code, "MISSING_ACCESS")
      const page = yield* Members.listMembers.run(withMember(base, "2"), Members.listMembers.query.make({ limit: 10 }), "1")
      assert.deepStrictEqual(page.map((m) => m.user.id), ["1", "2"])
      // Across processes the same answer travels as JSON.
      const json = yield* Members.listMembers.answer(withMember(base, "2"), { _tag: "ListMembers", limit: 1 }, "1")
      assert.deepStrictEqual(JSON.parse(json).map((m: { user: { id: string } }) => m.user.id), ["1"])
    }))

  it.effect("GUILD_CREATE for a member: their view, available, every member of a small guild, emojis and stickers; large from the threshold, then only their own member", () =>
    Effect.gen(function*() {
      const emoji = { id: "300", name: "wave", animated: false, mediaHash: "h", creator: user("1") }
      const sticker = { id: "301", name: "cat", description: "a cat", tags: ["cat"], animated: false, mediaHash: "h", creator: user("1") }
      const state: GuildState = { ...withMember(base, "2"), emojis: new Map([["300", emoji]]), stickers: new Map([["301", sticker]]) }
      const create = (s: GuildState, viewer: string, largeThreshold = 250) =>
        gatewayGuildCreate.run(s, gatewayGuildCreate.query.make({ largeThreshold }), viewer)
      const data = JSON.parse(yield* create(state, "2"))
      const owner = data.members.find((m: { user: { id: string } }) => m.user.id === "1")
      assert.deepStrictEqual(data, {
        ...JSON.parse(yield* Reads.view("2")(state)),
        unavailable: false,
        joined_at: "2026-01-02T00:00:00.000Z",
        large: false,
        members: [{ user: user("2"), roles: [], joined_at: "2026-01-02T00:00:00.000Z", mute: false, deaf: false }, owner],
        emojis: [{ id: "300", name: "wave", animated: false, nsfw: false }],
        stickers: [{ id: "301", name: "cat", description: "a cat", tags: ["cat"], animated: false, nsfw: false }]
      })
      assert.strictEqual((yield* Effect.flip(create(state, "9"))).code, "MISSING_ACCESS")

      assert.isDefined(owner)
      let crowded = base
      for (let i = 2; i <= 249; i++) crowded = withMember(crowded, String(i))
      const small = JSON.parse(yield* create(crowded, "7"))
      assert.isFalse(small.large)
      assert.strictEqual(small.members.length, 249)
      assert.strictEqual(small.members[0].user.id, "7")
      crowded = withMember(crowded, "250")
      const large = JSON.parse(yield* create(crowded, "7"))
      assert.isTrue(large.large)
      assert.deepStrictEqual(large.members.map((m: { user: { id: string } }) => m.user.id), ["7"])
      // A session that asked for a lower threshold (IDENTIFY's large_threshold) sees a large guild sooner.
      const three = withMember(withMember(base, "2"), "3")
      assert.isFalse(JSON.parse(yield* create(three, "1", 50)).large)
      assert.isTrue(JSON.parse(yield* create(three, "1", 3)).large)
    }))

  it.effect("show each member only the channels they can see", () =>
    Effect.gen(function*() {
      const denyView = { id: "100", type: 0, allow: "0", deny: Permission.VIEW_CHANNEL.toString() }
      const secret = { ...[...base.channels.values()][0]!, id: "102", name: "secret", permission_overwrites: [denyView] }
      const state: GuildState = { ...withMember(base, "2"), channels: new Map([...base.channels, ["102", secret]]) }
      const channelsOf = (json: string) => (JSON.parse(json) as { channels: Array<{ id: string }> }).channels.map((c) => c.id)
      assert.deepStrictEqual(channelsOf(yield* Reads.view("1")(state)), ["101", "102"])
      assert.deepStrictEqual(channelsOf(yield* Reads.view("2")(state)), ["101"])
      assert.deepStrictEqual(Views.guildViewOfMember(state, "2").channels?.map((c) => c.id), ["101"])
    }))
})
