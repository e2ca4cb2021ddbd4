import { Effect, Schema } from "effect"
import { type GuildRole, roleView } from "../roles/GuildRole.ts"
import { invalidField, missingPermissions } from "../../../src/model/Errors.ts"
import { GuildRoleHoistPositionsRequest, GuildRolePositionsRequest } from "../../../src/model/Roles.ts"
import { requirePermission } from "../Access.ts"
import { canManageRole, compareRoles, isEveryone } from "../members/Hierarchy.ts"
import { type AuditEntry, type Decision, type GuildEvent, unchanged, write } from "../Definitions.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import type { GuildState } from "../State.ts"
import { updateRoles } from "./RoleRows.ts"

const ROLE_UPDATE = 31

/** Checks each listed id: not @everyone (`everyoneCode`), a role of the guild (INVALID_ROLE_ID). */
const checkListed = (state: GuildState, ids: ReadonlyArray<string>, everyoneCode: string) =>
  Effect.forEach(ids, (id, index) => {
    if (isEveryone(state, id)) return Effect.fail(invalidField(`${index}.id`, everyoneCode, "The @everyone role cannot be moved"))
    return state.roles.has(id) ? Effect.void : Effect.fail(invalidField(`${index}.id`, "INVALID_ROLE_ID", "Role is not in this guild"))
  }, { discard: true })

/** The decision of moving roles: one audit entry and one event per role whose `key` changed. */
const moved = (
  state: GuildState,
  guildId: string,
  changed: ReadonlyArray<GuildRole>,
  key: "position" | "hoist_position"
): Decision<null> => {
  if (changed.length === 0) return unchanged(state, null)
  const audit: Array<AuditEntry> = changed.map((role) => ({
    actionType: ROLE_UPDATE,
    targetId: role.id,
    changes: [{ key, old_value: state.roles.get(role.id)?.[key] ?? null, new_value: role[key] ?? null }],
    options: { role_name: role.name }
  }))
  const events: Array<GuildEvent> = changed.map((role) => ({ type: "GUILD_ROLE_UPDATE", data: { guild_id: guildId, role: roleView(role) } }))
  return {
    next: { ...state, roles: new Map([...state.roles, ...changed.map((r): [string, GuildRole] => [r.id, r])]) },
    reply: null,
    persist: updateRoles(changed),
    audit,
    events
  }
}

/**
 * The roles after a reorder: the roles the actor may manage are sorted again by
 * the positions asked (unlisted ones keep theirs; ties keep the current order)
 * into the slots they held; the others stay where they are. Positions are then
 * renumbered from the top down to 1, @everyone staying at 0.
 */
export const reorder = (
  state: GuildState,
  actorId: string,
  asked: ReadonlyMap<string, number>
): ReadonlyArray<GuildRole> => {
  const current = [...state.roles.values()].filter((r) => !isEveryone(state, r.id)).sort(compareRoles)
  const index = new Map(current.map((r, i) => [r.id, i]))
  const slots = current.flatMap((r, i) => (canManageRole(state, actorId, r) ? [i] : []))
  const wanted = (r: GuildRole) => asked.get(r.id) ?? r.position
  const manageable = current.filter((_, i) => slots.includes(i))
  const sorted = manageable.sort((a, b) => wanted(b) - wanted(a) || (index.get(a.id) ?? 0) - (index.get(b.id) ?? 0))
  const target = current.map((role, i) => {
    const slot = slots.indexOf(i)
    return slot === -1 ? role : (sorted[slot] ?? role)
  })
  return target.flatMap((role, i) => {
    const position = target.length - i
    return role.position === position ? [] : [{ ...role, position }]
  })
}

/**
 * A new role in the list: at the bottom (position 1, every other role moving
 * up one), or at `position` when asked (the roles from there up moving up
 * one), among the slots of the roles the actor may manage (RoleOrder.reorder).
 * No two roles share a position after it, so a new role never ties with a
 * bot's role. The new role as placed, and the others whose position changed.
 */
export const placeNewRole = (
  state: GuildState,
  actorId: string,
  role: GuildRole,
  position: number | undefined
): { readonly role: GuildRole; readonly moved: ReadonlyArray<GuildRole> } => {
  const ordered = [...[...state.roles.values()].filter((r) => !isEveryone(state, r.id)).sort(compareRoles), role]
  const renumbered = ordered.map((r, i) => ({ ...r, position: ordered.length - i }))
  const atBottom: GuildState = { ...state, roles: new Map([...state.roles, ...renumbered.map((r): [string, GuildRole] => [r.id, r])]) }
  // Asked just above the role now at `position`, it takes that position and that role moves up.
  const asked = position === undefined ? [] : reorder(atBottom, actorId, new Map([[role.id, position + 0.5]]))
  const placed = new Map([...renumbered, ...asked].map((r): [string, GuildRole] => [r.id, r]))
  return {
    role: placed.get(role.id) ?? role,
    moved: [...placed.values()].filter((r) => r.id !== role.id && state.roles.get(r.id)?.position !== r.position)
  }
}

/** PATCH /guilds/{id}/roles: MANAGE_ROLES; only roles below the actor may move. */
export const updateRolePositions = write(
  "UpdateRolePositions",
  { request: GuildRolePositionsRequest },
  Schema.Null,
  (state, { request }, context) =>
    Effect.gen(function*() {
      yield* requirePermission(state, context.actorId, Permission.MANAGE_ROLES, context.now)
      yield* checkListed(state, request.map((e) => e.id), "CANNOT_REORDER_EVERYONE_ROLE")
      const asked = new Map(request.flatMap((e) => (e.position === undefined ? [] : [[e.id, e.position] as const])))
      for (const [id, position] of asked) {
        const role = state.roles.get(id)
        if (role !== undefined && role.position !== position && !canManageRole(state, context.actorId, role)) {
          return yield* Effect.fail(missingPermissions())
        }
      }
      return moved(state, context.guildId, reorder(state, context.actorId, asked), "position")
    })
)

/** PATCH /guilds/{id}/roles/hoist-positions: MANAGE_ROLES; the member-list order of roles below the actor. */
export const updateHoistPositions = write(
  "UpdateRoleHoistPositions",
  { request: GuildRoleHoistPositionsRequest },
  Schema.Null,
  (state, { request }, context) =>
    Effect.gen(function*() {
      yield* requirePermission(state, context.actorId, Permission.MANAGE_ROLES, context.now)
      yield* checkListed(state, request.map((e) => e.id), "CANNOT_SET_HOIST_FOR_EVERYONE_ROLE")
      const changed: Array<GuildRole> = []
      for (const { id, hoist_position } of request) {
        const role = state.roles.get(id)
        if (role === undefined) continue
        if (!canManageRole(state, context.actorId, role)) return yield* Effect.fail(missingPermissions())
        if ((role.hoist_position ?? null) !== hoist_position) changed.push({ ...role, hoist_position })
      }
      return moved(state, context.guildId, changed, "hoist_position")
    })
)

/** DELETE /guilds/{id}/roles/hoist-positions: MANAGE_ROLES; every role follows `position` again. */
export const resetHoistPositions = write("ResetRoleHoistPositions", {}, Schema.Null, (state, _command, context) =>
  Effect.gen(function*() {
    yield* requirePermission(state, context.actorId, Permission.MANAGE_ROLES, context.now)
    const changed = [...state.roles.values()].filter((r) => r.hoist_position != null).map((r) => ({ ...r, hoist_position: null }))
    return moved(state, context.guildId, changed, "hoist_position")
  }))

export const roleOrderWrites = [updateRolePositions, updateHoistPositions, resetHoistPositions] as const
