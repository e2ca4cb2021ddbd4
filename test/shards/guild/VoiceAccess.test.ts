import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import type { GuildChannel } from "../../../shards/guild/channels/GuildChannel.ts"
import { applyMemberPatch } from "../../../shards/guild/members/MemberUpdate.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import { SharedMap } from "../../../shards/guild/SharedMap.ts"
import { createGuild, type GuildState } from "../../../shards/guild/State.ts"
import { mayStay, voiceAccess } from "../../../shards/guild/channels/VoiceAccess.ts"
import { ChannelType } from "../../../src/model/Channels.ts"
import { CarriedId } from "../../../src/model/Ids.ts"

const user = (id: string) => ({ id, username: `u${id}`, discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 })
const now = Date.parse("2026-06-01T00:00:00Z")

const voice = (id: string, extra: Partial<GuildChannel> = {}): GuildChannel => ({
  id,
  guild_id: "100",
  name: `voice ${id}`,
  topic: null,
  type: ChannelType.VOICE,
  position: 1,
  parent_id: null,
  nsfw: false,
  permission_overwrites: [],
  user_limit: 0,
  ...extra
})

let s: GuildState = createGuild({ guildId: "100", channelId: "101", owner: user("1"), name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })
s = {
  ...s,
  roles: new Map([...s.roles, ["201", {
    id: "201",
    name: "movers",
    color: 0,
    position: 1,
    permissions: Permission.MOVE_MEMBERS.toString(),
    hoist: false,
    mentionable: false
  }]]),
  channels: new Map([
    ...s.channels,
    ["102", voice("102", { user_limit: 2 })],
    // @everyone sees it and may not connect; member 3 may, by their own overwrite.
    ["103", voice("103", {
      permission_overwrites: [
        { id: "100", type: 0, allow: "0", deny: Permission.CONNECT.toString() },
        { id: "3", type: 1, allow: Permission.CONNECT.toString(), deny: "0" }
      ]
    })]
  ]),
  members: SharedMap.from([
    ...s.members,
    ["2", { user: user("2"), roles: ["201"], joined_at: "2026-01-02T00:00:00.000Z", mute: true, deaf: false }],
    ["3", { user: user("3"), roles: [], joined_at: "2026-01-02T00:00:00.000Z", mute: false, deaf: false }],
    ["4", {
      user: user("4"),
      roles: [],
      joined_at: "2026-01-02T00:00:00.000Z",
      mute: false,
      deaf: false,
      communication_disabled_until: new Date(now + 60_000).toISOString()
    }]
  ])
}

const code = (result: ReturnType<typeof voiceAccess>): string | undefined => {
  if (Result.isSuccess(result)) return undefined
  const error = result.failure
  return "errors" in error && error.errors !== undefined ? error.errors[0]?.code ?? error.code : error.code
}

describe("voice access", () => {
  it("lets members who may connect into voice channels, with the member and the user limit as it binds them", () => {
    const plain = voiceAccess(s, "3", "102", now)
    assert.isTrue(Result.isSuccess(plain))
    if (Result.isSuccess(plain)) {
      assert.strictEqual(plain.success.member.user.id, "3")
      assert.deepStrictEqual([plain.success.userLimit, plain.success.bypassesLimit], [2, false])
    }
    const mover = voiceAccess(s, "2", "102", now)
    assert.isTrue(Result.isSuccess(mover) && mover.success.bypassesLimit && mover.success.member.mute)
  })

  it("refuses non-members, unknown and text channels, a denied CONNECT and a timed-out member", () => {
    assert.strictEqual(code(voiceAccess(s, "9", "102", now)), "MISSING_ACCESS")
    assert.strictEqual(code(voiceAccess(s, "3", "999", now)), "UNKNOWN_CHANNEL")
    assert.strictEqual(code(voiceAccess(s, "3", "101", now)), "CHANNEL_MUST_BE_VOICE")
    assert.strictEqual(code(voiceAccess(s, "2", "103", now)), "MISSING_PERMISSIONS")
    assert.isTrue(Result.isSuccess(voiceAccess(s, "3", "103", now)))
    assert.strictEqual(code(voiceAccess(s, "4", "102", now)), "MISSING_PERMISSIONS")
    // The owner connects anywhere.
    assert.isTrue(Result.isSuccess(voiceAccess(s, "1", "103", now)))
  })

  it("keeps in voice who may still connect there, whatever the user limit; not a timed-out member, nor where CONNECT is denied", () => {
    // No user limit is consulted: 102's limit of two binds joining only.
    assert.strictEqual(mayStay(s, "3", "102", now)?.user.id, "3")
    assert.strictEqual(mayStay(s, "3", "103", now)?.user.id, "3")
    assert.isUndefined(mayStay(s, "2", "103", now))
    assert.isUndefined(mayStay(s, "4", "102", now))
    // Their timeout over, they may be there again.
    assert.strictEqual(mayStay(s, "4", "102", now + 120_000)?.user.id, "4")
    assert.isUndefined(mayStay(s, "9", "102", now))
    assert.isUndefined(mayStay(s, "3", "101", now))
    assert.isUndefined(mayStay(s, "3", "999", now))
  })

  it("moves a member by PATCH only where they could connect themselves", () => {
    const move = (target: string, channelId: string) =>
      Effect.runSync(Effect.match(applyMemberPatch(s, "2", target, { channel_id: CarriedId.ChannelId.make(channelId) }, now), {
        onFailure: (e) => e.code,
        onSuccess: () => "ok"
      }))
    assert.strictEqual(move("3", "103"), "ok")
    assert.strictEqual(move("1", "102"), "ok")
    assert.strictEqual(move("4", "102"), "MISSING_PERMISSIONS")
    // Member 2 moves themselves nowhere they may not connect.
    assert.strictEqual(move("2", "103"), "MISSING_PERMISSIONS")
  })
})
