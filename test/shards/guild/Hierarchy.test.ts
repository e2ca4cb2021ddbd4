import { assert, describe, it } from "@effect/vitest"
import { canGrant, canManageRole, compareRoles, highestPosition, highestRole, outranks } from "../../../shards/guild/members/Hierarchy.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import { createGuild, type GuildState } from "../../../shards/guild/State.ts"
import type { GuildMemberResponse, GuildRoleResponse } from "../../../src/model/Guilds.ts"
import { SharedMap } from "../../../shards/guild/SharedMap.ts"

const user = (id: string) => ({ id, username: `u${id}`, discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 })
const base = createGuild({ guildId: "100", channelId: "101", owner: user("1"), name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })

const role = (id: string, position: number, permissions = 0n): GuildRoleResponse => ({
  id, name: `r${id}`, color: 0, position, permissions: permissions.toString(), hoist: false, mentionable: false
})

/** A guild with roles 10 (position 3, MANAGE_ROLES), 11 (2), 12 (1) and 13 (1, newer than 12), and members holding them. */
const guild = (members: Record<string, ReadonlyArray<string>>): GuildState => ({
  ...base,
  roles: new Map([
    ...base.roles,
    ...[role("10", 3, Permission.MANAGE_ROLES), role("11", 2), role("12", 1), role("13", 1)].map((r): [string, GuildRoleResponse] => [r.id, r])
  ]),
  members: SharedMap.from([
    ...base.members,
    ...Object.entries(members).map(([id, roles]): [string, GuildMemberResponse] =>
      [id, { user: user(id), roles, joined_at: "2026-01-02T00:00:00.000Z", mute: false, deaf: false }])
  ])
})

describe("role hierarchy", () => {
  it("orders by position, the older role first on a tie", () => {
    const state = guild({})
    const sorted = [...state.roles.values()].sort(compareRoles).map((r) => r.id)
    assert.deepStrictEqual(sorted, ["10", "11", "12", "13", "100"])
  })

  it("finds a member's highest role: @everyone without roles, nothing for a stranger", () => {
    const state = guild({ "2": ["12", "11"], "3": [], "4": ["13", "12"] })
    assert.strictEqual(highestRole(state, "2")?.id, "11")
    assert.strictEqual(highestPosition(state, "2"), 2)
    assert.strictEqual(highestRole(state, "3")?.id, "100")
    assert.strictEqual(highestPosition(state, "3"), 0)
    assert.strictEqual(highestRole(state, "4")?.id, "12")
    assert.strictEqual(highestRole(state, "9"), undefined)
    assert.strictEqual(highestPosition(state, "9"), -1)
  })

  it("lets a member manage only roles strictly below their highest; the owner manages all", () => {
    const state = guild({ "2": ["11"], "3": ["12"] })
    assert.isTrue(canManageRole(state, "2", "12"))
    assert.isTrue(canManageRole(state, "2", state.roles.get("13")!))
    assert.isFalse(canManageRole(state, "2", "11"))
    assert.isFalse(canManageRole(state, "2", "10"))
    // Same position, older role: 12 ranks above 13, not the reverse.
    assert.isTrue(canManageRole(state, "3", "13"))
    assert.isFalse(canManageRole(guild({ "4": ["13"] }), "4", "12"))
    assert.isTrue(canManageRole(state, "1", "10"))
    assert.isFalse(canManageRole(state, "1", "999"))
    assert.isFalse(canManageRole(state, "9", "13"))
  })

  it("outranks: by highest role; never the owner nor oneself; any member outranks a non-member", () => {
    const state = guild({ "2": ["11"], "3": ["12"], "4": ["12"], "5": [] })
    assert.isTrue(outranks(state, "2", "3"))
    assert.isFalse(outranks(state, "3", "2"))
    assert.isFalse(outranks(state, "3", "4"))
    assert.isTrue(outranks(state, "3", "5"))
    assert.isFalse(outranks(state, "5", "5"))
    assert.isFalse(outranks(state, "2", "1"))
    assert.isTrue(outranks(state, "1", "2"))
    assert.isTrue(outranks(state, "5", "9"))
    assert.isFalse(outranks(state, "9", "5"))
  })

  it("grants only bits the actor holds; the owner and ADMINISTRATOR hold all", () => {
    const state = guild({ "2": ["10"] })
    assert.isTrue(canGrant(state, "2", Permission.MANAGE_ROLES | Permission.SEND_MESSAGES))
    assert.isFalse(canGrant(state, "2", Permission.BAN_MEMBERS))
    assert.isTrue(canGrant(state, "1", Permission.ADMINISTRATOR))
    const admin: GuildState = { ...state, roles: new Map([...state.roles, ["11", role("11", 2, Permission.ADMINISTRATOR)]]) }
    const withAdmin: GuildState = { ...admin, members: SharedMap.from([...admin.members, ["3", { ...admin.members.get("2")!, user: user("3"), roles: ["11"] }]]) }
    assert.isTrue(canGrant(withAdmin, "3", Permission.BAN_MEMBERS))
  })
})
