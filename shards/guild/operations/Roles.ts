import { Effect, Schema } from "effect"
import { GuildRoleResponse } from "../../../src/model/Guilds.ts"
import { BadRequest, missingPermissions, unknown } from "../../../src/model/Errors.ts"
import { GuildRoleCreateRequest, GuildRoleUpdateRequest, permissionBits, requestedColor } from "../../../src/model/Roles.ts"
import { changesOf, requireMember, requirePermission } from "../Access.ts"
import { compareRoles, isEveryone } from "../members/Hierarchy.ts"
import { memberView } from "../members/GuildMember.ts"
import { read, write } from "../Definitions.ts"
import { ALL_PERMISSIONS, Permission } from "../../../src/model/Permissions.ts"
import type { GuildState } from "../State.ts"
import { type GuildRole, isManaged, roleView } from "../roles/GuildRole.ts"
import { findRole, requireGrantable, requireManageable } from "./RoleChecks.ts"
import { memberRoleReads, memberRoleWrites } from "./MemberRoles.ts"
import { placeNewRole, roleOrderWrites } from "./RoleOrder.ts"
import { deleteRole as deleteRoleRow, insertRole, updateRoles } from "./RoleRows.ts"
import { CarriedId } from "../../../src/model/Ids.ts"
import type { LimitReader } from "../../../src/model/Limits.ts"

/** Audit log action types (part C, AuditLogActionType). */
const ROLE_CREATE = 30
const ROLE_UPDATE = 31
const ROLE_DELETE = 32

/** Room for one more role (@everyone included) under the instance's limit (src/platform/Limits.ts). */
export const checkRoleRoom = (state: GuildState, limits: LimitReader): Effect.Effect<void, BadRequest> => {
  const max = limits("max_guild_roles", { guildFeatures: state.guild.features })
  return state.roles.size >= max
    ? Effect.fail(new BadRequest({ code: "MAX_GUILD_ROLES", message: `Maximum number of guild roles reached (${max})` }))
    : Effect.void
}

/** The fields of a role an audit entry records. */
const auditFields = (role: GuildRole) => ({
  name: role.name,
  permissions: role.permissions,
  color: role.color,
  hoist: role.hoist,
  mentionable: role.mentionable
})

const withRole = (state: GuildState, role: GuildRole): GuildState => ({
  ...state,
  roles: new Map([...state.roles, [role.id, role]])
})

/** GET /guilds/{id}/roles: every role, highest first, for a member. */
export const listRoles = read("ListRoles", {}, Schema.Array(GuildRoleResponse), (state, _query, viewerId) =>
  Effect.as(requireMember(state, viewerId), [...state.roles.values()].sort(compareRoles).map(roleView)))

/** A role as it is made: at the bottom of the list (position 1), neither hoisted nor mentionable. */
export const newRole = (id: string, name: string, permissions: bigint, color = 0): GuildRole => ({
  id,
  name,
  color,
  position: 1,
  hoist_position: null,
  permissions: permissions.toString(),
  hoist: false,
  mentionable: false,
  unicode_emoji: null
})

/**
 * A new role joins the guild: placed (RoleOrder.ts) with the roles it moved,
 * announced as created and each moved role as updated. `audit` records it.
 */
export const roleAdded = (state: GuildState, guildId: string, placed: { readonly role: GuildRole; readonly moved: ReadonlyArray<GuildRole> }) => ({
  next: { ...state, roles: new Map([...state.roles, ...[placed.role, ...placed.moved].map((r): [string, GuildRole] => [r.id, r])]) },
  persist: Effect.andThen(insertRole(guildId, placed.role), updateRoles(placed.moved)),
  audit: {
    actionType: ROLE_CREATE,
    targetId: placed.role.id,
    changes: Object.entries(auditFields(placed.role)).map(([key, value]) => ({ key, new_value: value }))
  },
  events: [
    { type: "GUILD_ROLE_CREATE", data: { guild_id: guildId, role: roleView(placed.role) } },
    ...placed.moved.map((role) => ({ type: "GUILD_ROLE_UPDATE", data: { guild_id: guildId, role: roleView(role) } }))
  ]
})

/** POST /guilds/{id}/roles: MANAGE_ROLES; the new role sits at the bottom, or at the position asked below the actor. */
export const createRole = write(
  "CreateRole",
  { roleId: CarriedId.RoleId, request: GuildRoleCreateRequest },
  GuildRoleResponse,
  (state, { roleId, request }, context) =>
    Effect.gen(function*() {
      yield* requirePermission(state, context.actorId, Permission.MANAGE_ROLES, context.now)
      yield* checkRoleRoom(state, context.limits)
      const everyonePermissions = state.roles.get(state.guild.id)?.permissions ?? "0"
      const permissions = request.permissions === undefined
        ? BigInt(everyonePermissions)
        : permissionBits(request.permissions) & ALL_PERMISSIONS
      yield* requireGrantable(state, context.actorId, permissions)
      const made: GuildRole = {
        ...newRole(roleId, request.name, permissions, requestedColor(request) ?? 0),
        hoist: request.hoist ?? false,
        mentionable: request.mentionable ?? false,
        hoist_position: request.hoist_position ?? null,
        unicode_emoji: request.unicode_emoji ?? null
      }
      const placed = placeNewRole(state, context.actorId, made, request.position)
      const added = roleAdded(state, context.guildId, placed)
      return { ...added, reply: roleView(placed.role), audit: [added.audit] }
    })
)

/** PATCH /guilds/{id}/roles/{role_id}: MANAGE_ROLES, below the actor; @everyone takes only colour and permissions. */
export const updateRole = write(
  "UpdateRole",
  { roleId: CarriedId.RoleId, request: GuildRoleUpdateRequest },
  GuildRoleResponse,
  (state, { roleId, request }, context) =>
    Effect.gen(function*() {
      yield* requirePermission(state, context.actorId, Permission.MANAGE_ROLES, context.now)
      const role = yield* findRole(state, roleId)
      yield* requireManageable(state, context.actorId, role)
      const { permissions: requested, color: _color, colors: _colors, ...rest } = request
      const color = requestedColor(request)
      const permissions = requested === undefined ? undefined : permissionBits(requested) & ALL_PERMISSIONS
      if (permissions !== undefined) yield* requireGrantable(state, context.actorId, permissions)
      const everyone = isEveryone(state, roleId)
      const patch = {
        color,
        ...(everyone ? {} : rest),
        ...(permissions === undefined ? {} : { permissions: permissions.toString() })
      }
      const defined = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined))
      const updated: GuildRole = { ...role, ...defined }
      const changes = changesOf(role, defined)
      if (changes.length === 0) {
        return { next: state, reply: roleView(role), persist: Effect.void, audit: [], events: [] }
      }
      return {
        next: withRole(state, updated),
        reply: roleView(updated),
        persist: updateRoles([updated]),
        audit: [{ actionType: ROLE_UPDATE, targetId: role.id, changes, options: { role_name: updated.name } }],
        events: [{ type: "GUILD_ROLE_UPDATE", data: { guild_id: context.guildId, role: roleView(updated) } }]
      }
    })
)

/** DELETE /guilds/{id}/roles/{role_id}: MANAGE_ROLES, below the actor; every member loses it. @everyone and a bot's managed role are not deletable. */
export const deleteRole = write("DeleteRole", { roleId: CarriedId.RoleId }, Schema.Null, (state, { roleId }, context) =>
  Effect.gen(function*() {
    yield* requirePermission(state, context.actorId, Permission.MANAGE_ROLES, context.now)
    if (isEveryone(state, roleId)) return yield* Effect.fail(unknown("ROLE"))
    const role = yield* findRole(state, roleId)
    yield* requireManageable(state, context.actorId, role)
    // A bot's role leaves with the bot, not by hand.
    if (isManaged(role)) return yield* Effect.fail(missingPermissions())
    const roles = new Map(state.roles)
    roles.delete(roleId)
    const holders = [...state.members.values()].filter((m) => m.roles.includes(roleId))
    const updated = holders.map((member) => ({ ...member, roles: member.roles.filter((id) => id !== roleId) }))
    const members = state.members.withAll(updated.map((member) => [member.user.id, member] as const))
    return {
      next: { ...state, roles, members },
      reply: null,
      persist: deleteRoleRow(context.guildId, roleId),
      audit: [{
        actionType: ROLE_DELETE,
        targetId: roleId,
        changes: Object.entries(auditFields(role)).map(([key, value]) => ({ key, old_value: value }))
      }],
      events: [
        { type: "GUILD_ROLE_DELETE", data: { guild_id: context.guildId, role_id: roleId } },
        ...updated.map((m) => ({ type: "GUILD_MEMBER_UPDATE", data: { guild_id: context.guildId, ...memberView(m) } }))
      ]
    }
  }))

export const roleWrites = [createRole, updateRole, deleteRole, ...roleOrderWrites, ...memberRoleWrites] as const
export const roleReads = [listRoles, ...memberRoleReads] as const
