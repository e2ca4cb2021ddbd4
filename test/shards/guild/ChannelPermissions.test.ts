import { assert, describe, it } from "@effect/vitest"
import { canView, channelPermissions, type Overwrite } from "../../../shards/guild/channels/ChannelPermissions.ts"
import { ALL_PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS, Permission } from "../../../src/model/Permissions.ts"
import { createGuild, type GuildState } from "../../../shards/guild/State.ts"
import type { GuildMemberResponse, GuildRoleResponse } from "../../../src/model/Guilds.ts"
import type { GuildChannel } from "../../../shards/guild/channels/GuildChannel.ts"
import { SharedMap } from "../../../shards/guild/SharedMap.ts"

const user = (id: string) => ({ id, username: `u${id}`, discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 })
const base = createGuild({ guildId: "100", channelId: "101", owner: user("1"), name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })
const role = (id: string, permissions: bigint): [string, GuildRoleResponse] =>
  [id, { id, name: `r${id}`, color: 0, position: 1, permissions: permissions.toString(), hoist: false, mentionable: false }]
const member = (id: string, roles: ReadonlyArray<string>, timeoutUntil?: string): [string, GuildMemberResponse] =>
  [id, { user: user(id), roles, joined_at: "2026-01-02T00:00:00.000Z", mute: false, deaf: false, communication_disabled_until: timeoutUntil ?? null }]
const overwrite = (id: string, type: 0 | 1, allow: bigint, deny: bigint): Overwrite =>
  ({ id, type, allow: allow.toString(), deny: deny.toString() })
const channel = (id: string, overwrites: ReadonlyArray<Overwrite>, parentId: string | null = null): GuildChannel =>
  ({ id, guild_id: "100", name: `c${id}`, topic: null, type: parentId === null && id === "300" ? 4 : 0, position: 0, parent_id: parentId, nsfw: false, permission_overwrites: overwrites })

/** Roles: 10 plain, 11 ADMINISTRATOR. Members: 2 with 10, 3 with 11, 4 none, 5 with 10 timed out. */
const state: GuildState = {
  ...base,
  roles: new Map([...base.roles, role("10", Permission.MANAGE_MESSAGES), role("11", Permission.ADMINISTRATOR)]),
  members: SharedMap.from([...base.members, member("2", ["10"]), member("3", ["11"]), member("4", []), member("5", ["10"], "2030-01-01T00:00:00Z")])
}
const V = Permission.VIEW_CHANNEL
const S = Permission.SEND_MESSAGES

describe("channel permissions", () => {
  it("gives the owner and administrators everything whatever the overwrites, a stranger nothing", () => {
    const locked = channel("200", [overwrite("100", 0, 0n, ALL_PERMISSIONS)])
    assert.strictEqual(channelPermissions(state, "1", locked), ALL_PERMISSIONS)
    assert.strictEqual(channelPermissions(state, "3", locked), ALL_PERMISSIONS)
    assert.strictEqual(channelPermissions(state, "9", channel("201", [])), 0n)
    assert.isFalse(canView(state, "9", channel("201", [])))
  })

  it("leaves nothing in a channel without VIEW_CHANNEL, whatever else the guild level or an overwrite grants", () => {
    const hidden = channel("200", [overwrite("100", 0, Permission.CREATE_INSTANT_INVITE, V)])
    assert.strictEqual(channelPermissions(state, "2", hidden), 0n)
    assert.strictEqual(channelPermissions(state, "4", hidden, Date.parse("2026-06-01T00:00:00Z")), 0n)
    assert.strictEqual(channelPermissions(state, "1", hidden), ALL_PERMISSIONS)
    assert.strictEqual(channelPermissions(state, "3", hidden), ALL_PERMISSIONS)
  })

  it("starts from the guild base: @everyone OR member roles", () => {
    assert.strictEqual(channelPermissions(state, "2", channel("200", [])), DEFAULT_EVERYONE_PERMISSIONS | Permission.MANAGE_MESSAGES)
    assert.strictEqual(channelPermissions(state, "4", channel("200", [])), DEFAULT_EVERYONE_PERMISSIONS)
  })

  it("applies the @everyone overwrite, then the roles combined, then the member's own", () => {
    const everyoneDenies = overwrite("100", 0, 0n, V | S)
    assert.isFalse(canView(state, "4", channel("200", [everyoneDenies])))
    // The role allow beats the @everyone deny.
    const roleAllows = overwrite("10", 0, V, 0n)
    assert.isTrue(canView(state, "2", channel("200", [everyoneDenies, roleAllows])))
    assert.strictEqual(channelPermissions(state, "2", channel("200", [everyoneDenies, roleAllows])) & S, 0n)
    // The member overwrite comes last: it beats the role allow.
    const memberDenies = overwrite("2", 1, 0n, V)
    assert.isFalse(canView(state, "2", channel("200", [memberDenies, everyoneDenies, roleAllows])))
    const memberAllows = overwrite("4", 1, S | V, 0n)
    assert.strictEqual(channelPermissions(state, "4", channel("200", [everyoneDenies, memberAllows])) & (V | S), V | S)
  })

  it("combines role overwrites: allows and denies are ORed before applying", () => {
    const s: GuildState = { ...state, members: SharedMap.from([...state.members, member("6", ["10", "12"])]), roles: new Map([...state.roles, role("12", 0n)]) }
    const c = channel("200", [overwrite("10", 0, S, 0n), overwrite("12", 0, 0n, S | Permission.ADD_REACTIONS)])
    const granted = channelPermissions(s, "6", c)
    // Allow wins within the role layer: (p & ~deny) | allow.
    assert.strictEqual(granted & S, S)
    assert.strictEqual(granted & Permission.ADD_REACTIONS, 0n)
  })

  it("reads a channel in a category by its own overwrites, not the category's", () => {
    const category = channel("300", [overwrite("100", 0, 0n, V)])
    const synced = channel("301", category.permission_overwrites ?? [], "300")
    const unsynced = channel("302", [], "300")
    assert.isFalse(canView(state, "4", category))
    assert.isFalse(canView(state, "4", synced))
    assert.isTrue(canView(state, "4", unsynced))
  })

  it("leaves a timed-out member only what a timeout allows, given the clock", () => {
    const c = channel("200", [])
    const now = Date.parse("2026-06-01T00:00:00Z")
    assert.strictEqual(channelPermissions(state, "5", c, now) & S, 0n)
    assert.strictEqual(channelPermissions(state, "5", c, now) & V, V)
    assert.strictEqual(channelPermissions(state, "5", c) & S, S)
  })
})
