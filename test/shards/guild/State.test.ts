import { assert, describe, it } from "@effect/vitest"
import { ALL_PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS, Permission } from "../../../src/model/Permissions.ts"
import { applyPatch, checkPatch, createGuild, guildPermissions, type GuildState, membersPage } from "../../../shards/guild/State.ts"
import { viewFor } from "../../../shards/guild/Views.ts"
import { SharedMap } from "../../../shards/guild/SharedMap.ts"

const user = (id: string) => ({ id, username: `u${id}`, discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 })
const base = createGuild({ guildId: "100", channelId: "101", owner: user("1"), name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })

const withMember = (state: GuildState, id: string, roles: ReadonlyArray<string> = []): GuildState => ({
  ...state,
  members: SharedMap.from([...state.members, [id, { user: user(id), roles, joined_at: "2026-01-02T00:00:00.000Z", mute: false, deaf: false }]])
})
const withRole = (state: GuildState, id: string, permissions: bigint): GuildState => ({
  ...state,
  roles: new Map([...state.roles, [id, { id, name: id, color: 0, position: 1, permissions: permissions.toString(), hoist: false, mentionable: false }]])
})

describe("guild state", () => {
  it("gives the owner everything, a stranger nothing, a member @everyone", () => {
    const s = withMember(base, "2")
    assert.strictEqual(guildPermissions(s, "1"), ALL_PERMISSIONS)
    assert.strictEqual(guildPermissions(s, "3"), 0n)
    assert.strictEqual(guildPermissions(s, "2"), DEFAULT_EVERYONE_PERMISSIONS)
  })

  it("ORs member roles and lets ADMINISTRATOR grant all", () => {
    const s = withMember(withRole(withRole(base, "200", Permission.MANAGE_GUILD), "201", Permission.ADMINISTRATOR), "2", ["200"])
    assert.strictEqual(guildPermissions(s, "2"), DEFAULT_EVERYONE_PERMISSIONS | Permission.MANAGE_GUILD)
    const admin = withMember(s, "3", ["201"])
    assert.strictEqual(guildPermissions(admin, "3"), ALL_PERMISSIONS)
  })

  it("views carry the caller's permissions as a decimal string", () => {
    const view = viewFor(withMember(base, "2"), "2")
    assert.strictEqual(view.permissions, DEFAULT_EVERYONE_PERMISSIONS.toString())
    assert.strictEqual(view.member_count, 2)
  })

  it("checks channel references and the history cutoff", () => {
    const now = Date.parse("2026-06-01T00:00:00Z")
    assert.strictEqual(checkPatch(base, { system_channel_id: "101" }, now), undefined)
    assert.strictEqual(checkPatch(base, { system_channel_id: "999" }, now)?.code, "SYSTEM_CHANNEL_MUST_BE_IN_GUILD")
    assert.strictEqual(checkPatch(base, { afk_channel_id: "101" }, now)?.code, "AFK_CHANNEL_MUST_BE_VOICE")
    assert.strictEqual(checkPatch(base, { message_history_cutoff: "2025-01-01T00:00:00Z" }, now)?.code, "MESSAGE_HISTORY_CUTOFF_BEFORE_GUILD_CREATION")
    assert.strictEqual(checkPatch(base, { message_history_cutoff: "nonsense" }, now)?.code, "INVALID_ISO_TIMESTAMP")
    assert.strictEqual(applyPatch(base, { name: "H" }).guild.name, "H")
  })

  it("pages members in id order", () => {
    const s = withMember(withMember(base, "30"), "4")
    assert.deepStrictEqual(membersPage(s, 2, undefined).map((m) => m.user.id), ["1", "4"])
    assert.deepStrictEqual(membersPage(s, 10, "4").map((m) => m.user.id), ["30"])
  })
})
