import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as MemberRoles from "../../../shards/guild/operations/MemberRoles.ts"
import * as Members from "../../../shards/guild/operations/Members.ts"
import * as RoleOrder from "../../../shards/guild/operations/RoleOrder.ts"
import * as Roles from "../../../shards/guild/operations/Roles.ts"
import type { WriteContext } from "../../../shards/guild/Definitions.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import { createGuild, type GuildState } from "../../../shards/guild/State.ts"
import type { GuildMemberResponse, GuildRoleResponse } from "../../../src/model/Guilds.ts"
import { BadRequest } from "../../../src/model/Errors.ts"
import { SharedMap } from "../../../shards/guild/SharedMap.ts"
import { CarriedId } from "../../../src/model/Ids.ts"
import { defaultLimits } from "../../../src/model/Limits.ts"

const user = (id: string) => ({ id, username: `u${id}`, discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 })
const base = createGuild({ guildId: "100", channelId: "101", owner: user("1"), name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })
const role = (id: string, position: number, permissions = 0n): GuildRoleResponse => ({
  id, name: `r${id}`, color: 0, position, permissions: permissions.toString(), hoist: false, mentionable: false
})
const member = (id: string, roles: ReadonlyArray<string>): [string, GuildMemberResponse] =>
  [id, { user: user(id), roles, joined_at: "2026-01-02T00:00:00.000Z", mute: false, deaf: false }]

/** Roles: 10 moderator (3, MANAGE_ROLES), 11 (2), 12 (1). Members: 2 moderator, 3 with 12, 4 plain. */
const state: GuildState = {
  ...base,
  roles: new Map([...base.roles, ...[role("10", 3, Permission.MANAGE_ROLES), role("11", 2), role("12", 1)].map((r): [string, GuildRoleResponse] => [r.id, r])]),
  members: SharedMap.from([...base.members, member("2", ["10"]), member("3", ["12"]), member("4", [])])
}
const context = (actorId: string): WriteContext => ({ guildId: "100", actorId, operationId: "5000", reason: null, limits: defaultLimits, now: Date.parse("2026-02-01T00:00:00Z") })

describe("role operations", () => {
  it.effect("create a role at position 1 with the asked bits, audit 30 and GUILD_ROLE_CREATE", () =>
    Effect.gen(function*() {
      const command = Roles.createRole.command.make({ roleId: CarriedId.RoleId.make("20"), request: { name: "helpers", color: 255, permissions: "2048" } })
      const decision = yield* Roles.createRole.decide(state, command, context("2"))
      assert.deepStrictEqual(decision.reply, {
        id: "20",
        name: "helpers",
        color: 255,
        colors: { primary_color: 255, secondary_color: null, tertiary_color: null },
        position: 1,
        hoist_position: null,
        permissions: "2048",
        hoist: false,
        managed: false,
        mentionable: false,
        unicode_emoji: null
      })
      assert.strictEqual(decision.next.roles.get("20")?.name, "helpers")
      assert.strictEqual(decision.audit[0]?.actionType, 30)
      assert.strictEqual(decision.events[0]?.type, "GUILD_ROLE_CREATE")
      // The roles above it moved up one: no two roles share a position.
      assert.deepStrictEqual([...decision.next.roles.values()].map((r) => [r.id, r.position]), [["100", 0], ["10", 4], ["11", 3], ["12", 2], ["20", 1]])
      assert.deepStrictEqual(decision.events.slice(1).map((e) => e.type), ["GUILD_ROLE_UPDATE", "GUILD_ROLE_UPDATE", "GUILD_ROLE_UPDATE"])
      const ungrantable = Roles.createRole.command.make({ roleId: CarriedId.RoleId.make("21"), request: { name: "x", permissions: Permission.BAN_MEMBERS.toString() } })
      const refused = yield* Effect.flip(Roles.createRole.decide(state, ungrantable, context("2")))
      assert.strictEqual(refused.code, "MISSING_PERMISSIONS")
      const plain = yield* Effect.flip(Roles.createRole.decide(state, command, context("4")))
      assert.strictEqual(plain.code, "MISSING_PERMISSIONS")
      const stranger = yield* Effect.flip(Roles.createRole.decide(state, command, context("9")))
      assert.strictEqual(stranger.code, "MISSING_ACCESS")
    }))

  it.effect("create takes what update takes, as both SDKs send it: hoist, mentionable, colors, unicode_emoji, hoist_position, position", () =>
    Effect.gen(function*() {
      const command = Roles.createRole.command.make({
        roleId: CarriedId.RoleId.make("20"),
        request: {
          name: "shiny",
          colors: { primary_color: 0x00ff00, secondary_color: null },
          hoist: true,
          mentionable: true,
          unicode_emoji: "✨",
          hoist_position: 7,
          position: 2
        }
      })
      const decision = yield* Roles.createRole.decide(state, command, context("2"))
      assert.deepInclude(decision.reply, {
        color: 0x00ff00,
        colors: { primary_color: 0x00ff00, secondary_color: null, tertiary_color: null },
        hoist: true,
        mentionable: true,
        unicode_emoji: "✨",
        hoist_position: 7,
        position: 2
      })
      // At the position asked, the role there and those above it moving up; the actor's own role stays the highest.
      assert.deepStrictEqual([...decision.next.roles.values()].map((r) => [r.id, r.position]), [["100", 0], ["10", 4], ["11", 3], ["12", 1], ["20", 2]])
      // Not above the actor: asked higher, it takes the highest slot the actor may manage.
      const higher = Roles.createRole.command.make({ roleId: CarriedId.RoleId.make("21"), request: { name: "up", position: 9 } })
      const capped = yield* Roles.createRole.decide(state, higher, context("2"))
      assert.strictEqual(capped.reply.position, 3)
      assert.strictEqual(capped.next.roles.get("10")?.position, 4)

      // An update takes `colors` too; its primary colour is the role's colour.
      const recolor = Roles.updateRole.command.make({ roleId: CarriedId.RoleId.make("12"), request: { colors: { primary_color: 9 }, unicode_emoji: "🔥" } })
      const recolored = yield* Roles.updateRole.decide(state, recolor, context("2"))
      assert.deepInclude(recolored.reply, { color: 9, unicode_emoji: "🔥" })
    }))

  it.effect("a bot's managed role leaves with it, announced after the member's removal", () =>
    Effect.gen(function*() {
      const withBot: GuildState = {
        ...state,
        roles: new Map([...state.roles, ["30", { ...role("30", 4), bot_id: "5" }]]),
        members: state.members.with(...member("5", ["30"]))
      }
      const kick = Members.kickMember.command.make({ targetId: CarriedId.UserId.make("5") })
      const kicked = yield* Members.kickMember.decide(withBot, kick, context("1"))
      assert.isFalse(kicked.next.roles.has("30"))
      assert.deepStrictEqual(kicked.events.map((e) => e.type), ["GUILD_MEMBER_REMOVE", "GUILD_ROLE_DELETE"])
      assert.deepStrictEqual(kicked.events[1]?.data, { guild_id: "100", role_id: "30" })
    }))

  it.effect("refuse the 251st role", () =>
    Effect.gen(function*() {
      const full: GuildState = {
        ...state,
        roles: new Map([...state.roles, ...Array.from({ length: 246 }, (_, i): [string, GuildRoleResponse] => [`${1000 + i}`, role(`${1000 + i}`, 1)])])
      }
      assert.strictEqual(full.roles.size, 250)
      const command = Roles.createRole.command.make({ roleId: CarriedId.RoleId.make("20"), request: { name: "one too many" } })
      const error = yield* Effect.flip(Roles.createRole.decide(full, command, context("1")))
      assert.strictEqual(error.code, "MAX_GUILD_ROLES")
    }))

  it.effect("update and delete only below the actor; @everyone is not deletable; a deleted role leaves its members", () =>
    Effect.gen(function*() {
      const above = Roles.updateRole.command.make({ roleId: CarriedId.RoleId.make("10"), request: { name: "mine" } })
      assert.strictEqual((yield* Effect.flip(Roles.updateRole.decide(state, above, context("2")))).code, "MISSING_PERMISSIONS")
      const below = Roles.updateRole.command.make({ roleId: CarriedId.RoleId.make("12"), request: { name: "renamed", hoist: true } })
      const updated = yield* Roles.updateRole.decide(state, below, context("2"))
      assert.deepStrictEqual(updated.audit[0]?.changes, [
        { key: "name", old_value: "r12", new_value: "renamed" },
        { key: "hoist", old_value: false, new_value: true }
      ])
      const everyoneName = Roles.updateRole.command.make({ roleId: CarriedId.RoleId.make("100"), request: { name: "all", color: 5 } })
      const everyone = yield* Roles.updateRole.decide(state, everyoneName, context("1"))
      assert.strictEqual(everyone.reply.name, "@everyone")
      assert.strictEqual(everyone.reply.color, 5)
      const missing = Roles.updateRole.command.make({ roleId: CarriedId.RoleId.make("77"), request: {} })
      assert.strictEqual((yield* Effect.flip(Roles.updateRole.decide(state, missing, context("1")))).code, "UNKNOWN_ROLE")

      const removed = yield* Roles.deleteRole.decide(state, Roles.deleteRole.command.make({ roleId: CarriedId.RoleId.make("12") }), context("2"))
      assert.isFalse(removed.next.roles.has("12"))
      assert.deepStrictEqual(removed.next.members.get("3")?.roles, [])
      assert.deepStrictEqual(removed.events.map((e) => e.type), ["GUILD_ROLE_DELETE", "GUILD_MEMBER_UPDATE"])
      const everyoneDelete = Roles.deleteRole.command.make({ roleId: CarriedId.RoleId.make("100") })
      assert.strictEqual((yield* Effect.flip(Roles.deleteRole.decide(state, everyoneDelete, context("1")))).code, "UNKNOWN_ROLE")
    }))

  it.effect("reorder: the manageable roles take the asked order, the others keep their slots", () =>
    Effect.gen(function*() {
      const swap = RoleOrder.updateRolePositions.command.make({ request: [{ id: "12", position: 2 }, { id: "11", position: 1 }] })
      const decision = yield* RoleOrder.updateRolePositions.decide(state, swap, context("2"))
      assert.deepStrictEqual(
        [...decision.next.roles.values()].map((r) => [r.id, r.position]),
        [["100", 0], ["10", 3], ["11", 1], ["12", 2]]
      )
      assert.deepStrictEqual(decision.audit.map((a) => a.changes[0]?.key), ["position", "position"])
      const overMe = RoleOrder.updateRolePositions.command.make({ request: [{ id: "10", position: 1 }] })
      assert.strictEqual((yield* Effect.flip(RoleOrder.updateRolePositions.decide(state, overMe, context("2")))).code, "MISSING_PERMISSIONS")
      const everyone = RoleOrder.updateRolePositions.command.make({ request: [{ id: "100", position: 3 }] })
      const refused = yield* Effect.flip(RoleOrder.updateRolePositions.decide(state, everyone, context("1")))
      assert.strictEqual(refused instanceof BadRequest ? refused.errors?.[0]?.code : refused.code, "CANNOT_REORDER_EVERYONE_ROLE")
      const hoist = RoleOrder.updateHoistPositions.command.make({ request: [{ id: "100", hoist_position: 1 }] })
      const noHoist = yield* Effect.flip(RoleOrder.updateHoistPositions.decide(state, hoist, context("1")))
      assert.strictEqual(noHoist instanceof BadRequest ? noHoist.errors?.[0]?.code : noHoist.code, "CANNOT_SET_HOIST_FOR_EVERYONE_ROLE")
    }))

  it.effect("grant and remove a role below the actor, audit 25 with $add / $remove", () =>
    Effect.gen(function*() {
      const grant = MemberRoles.addMemberRole.command.make({ targetId: CarriedId.UserId.make("4"), roleId: CarriedId.RoleId.make("11") })
      const granted = yield* MemberRoles.addMemberRole.decide(state, grant, context("2"))
      assert.deepStrictEqual(granted.next.members.get("4")?.roles, ["11"])
      assert.deepStrictEqual(granted.audit[0]?.changes, [{ key: "$add", new_value: [{ id: "11", name: "r11" }] }])
      const again = yield* MemberRoles.addMemberRole.decide(granted.next, grant, context("2"))
      assert.strictEqual(again.audit.length, 0)
      const removal = MemberRoles.removeMemberRole.command.make({ targetId: CarriedId.UserId.make("4"), roleId: CarriedId.RoleId.make("11") })
      const removed = yield* MemberRoles.removeMemberRole.decide(granted.next, removal, context("2"))
      assert.deepStrictEqual(removed.next.members.get("4")?.roles, [])
      assert.strictEqual(removed.audit[0]?.changes[0]?.key, "$remove")
      const own = MemberRoles.addMemberRole.command.make({ targetId: CarriedId.UserId.make("4"), roleId: CarriedId.RoleId.make("10") })
      assert.strictEqual((yield* Effect.flip(MemberRoles.addMemberRole.decide(state, own, context("2")))).code, "MISSING_PERMISSIONS")
      const nobody = MemberRoles.addMemberRole.command.make({ targetId: CarriedId.UserId.make("9"), roleId: CarriedId.RoleId.make("11") })
      assert.strictEqual((yield* Effect.flip(MemberRoles.addMemberRole.decide(state, nobody, context("2")))).code, "UNKNOWN_MEMBER")
    }))
})
