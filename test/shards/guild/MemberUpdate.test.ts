import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { applyMemberPatch, MAX_TIMEOUT_MS } from "../../../shards/guild/members/MemberUpdate.ts"
import { type MemberPatch } from "../../../src/model/Members.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import { createGuild, type GuildState } from "../../../shards/guild/State.ts"
import { SharedMap } from "../../../shards/guild/SharedMap.ts"

const user = (id: string) => ({ id, username: `u${id}`, discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 })
const now = Date.parse("2026-06-01T00:00:00Z")
const withRole = (state: GuildState, id: string, permissions: bigint, position: number): GuildState => ({
  ...state,
  roles: new Map([...state.roles, [id, { id, name: id, color: 0, position, permissions: permissions.toString(), hoist: false, mentionable: false }]])
})
const withMember = (state: GuildState, id: string, roles: ReadonlyArray<string>): GuildState => ({
  ...state,
  members: SharedMap.from([...state.members, [id, { user: user(id), roles, joined_at: "2026-01-02T00:00:00.000Z", mute: false, deaf: false }]])
})

const MOD = Permission.MANAGE_NICKNAMES | Permission.MANAGE_ROLES | Permission.MODERATE_MEMBERS
let s = createGuild({ guildId: "100", channelId: "101", owner: user("1"), name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })
s = withRole(withRole(withRole(withRole(s, "201", MOD, 5), "202", 0n, 1), "203", 0n, 9), "204", Permission.ADMINISTRATOR, 2)
s = withMember(withMember(withMember(withMember(s, "2", ["201"]), "3", ["202"]), "4", ["201"]), "5", ["204"])

const run = (actor: string, target: string, patch: MemberPatch) => Effect.runSyncExit(applyMemberPatch(s, actor, target, patch, now))
/** The error of a patch that must fail: its code, or the field error's code. */
const errorCode = (actor: string, target: string, patch: MemberPatch): string => {
  const error = Effect.runSync(Effect.flip(applyMemberPatch(s, actor, target, patch, now)))
  return "errors" in error && error.errors !== undefined ? error.errors[0]?.code ?? error.code : error.code
}

describe("member updates", () => {
  it("applies fields and reports each change once", () => {
    const exit = run("2", "3", { nick: "N", mute: undefined, bio: "hi", roles: ["202", "202"] })
    assert.isTrue(Exit.isSuccess(exit))
    if (Exit.isSuccess(exit)) {
      assert.strictEqual(exit.value.member.nick, "N")
      assert.strictEqual(exit.value.profile.bio, "hi")
      assert.deepStrictEqual(exit.value.changes.map((c) => c.key), ["nick", "bio"])
      assert.deepStrictEqual([exit.value.added, exit.value.removed], [[], []])
    }
  })

  it("needs rank over the target, the permission of each field, and a role below one's own", () => {
    assert.strictEqual(errorCode("2", "4", { nick: "peer" }), "MISSING_PERMISSIONS")
    assert.strictEqual(errorCode("2", "1", { nick: "owner" }), "MISSING_PERMISSIONS")
    assert.strictEqual(errorCode("3", "2", { mute: true }), "MISSING_PERMISSIONS")
    assert.strictEqual(errorCode("2", "3", { roles: ["203"] }), "MISSING_PERMISSIONS")
    assert.strictEqual(errorCode("9", "3", { nick: "x" }), "MISSING_ACCESS")
    assert.strictEqual(errorCode("2", "9", { nick: "x" }), "UNKNOWN_MEMBER")
    // An administrator ranked below the moderator still cannot be put in timeout.
    assert.strictEqual(errorCode("2", "5", { communication_disabled_until: new Date(now + 1000).toISOString() }), "MISSING_PERMISSIONS")
  })

  it("bounds timeouts to 365 days and checks roles exist", () => {
    const tooLong = new Date(now + MAX_TIMEOUT_MS + 1000).toISOString()
    assert.strictEqual(errorCode("2", "3", { communication_disabled_until: tooLong }), "TIMEOUT_CANNOT_EXCEED_365_DAYS")
    const justFits = new Date(now + MAX_TIMEOUT_MS).toISOString()
    assert.isTrue(Exit.isSuccess(run("2", "3", { communication_disabled_until: justFits })))
    assert.strictEqual(errorCode("2", "3", { roles: ["nope"] }), "INVALID_ROLE_ID")
    assert.strictEqual(errorCode("1", "3", { roles: ["100"] }), "INVALID_ROLE_ID")
  })
})
