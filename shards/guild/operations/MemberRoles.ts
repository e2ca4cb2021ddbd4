import { Effect, Schema } from "effect"
import { type GuildMember, memberView } from "../members/GuildMember.ts"
import { missingPermissions, unknown } from "../../../src/model/Errors.ts"
import { isManaged } from "../roles/GuildRole.ts"
import { requirePermission } from "../Access.ts"
import { isEveryone } from "../members/Hierarchy.ts"
import { unchanged, write } from "../Definitions.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import type { GuildState } from "../State.ts"
import { findRole, requireManageable } from "./RoleChecks.ts"
import { setMemberRoles } from "./RoleRows.ts"
import { withRoleGiven } from "./TemporaryMembers.ts"
import { CarriedId } from "../../../src/model/Ids.ts"

/** Audit log action type 25: member roles updated. */
const MEMBER_ROLE_UPDATE = 25

const memberRoleChange = (tag: "AddMemberRole" | "RemoveMemberRole", adding: boolean) =>
  write(tag, { targetId: CarriedId.UserId, roleId: CarriedId.RoleId }, Schema.Null, (state, { targetId, roleId }, context) =>
    Effect.gen(function*() {
      yield* requirePermission(state, context.actorId, Permission.MANAGE_ROLES, context.now)
      const member = state.members.get(targetId)
      if (member === undefined) return yield* Effect.fail(unknown("MEMBER"))
      // @everyone is every member's implicitly; it is never granted or removed.
      if (isEveryone(state, roleId)) return yield* Effect.fail(unknown("ROLE"))
      const role = yield* findRole(state, roleId)
      yield* requireManageable(state, context.actorId, role)
      // A bot's managed role is its own: no one gives or takes it by hand.
      if (isManaged(role)) return yield* Effect.fail(missingPermissions())
      if (member.roles.includes(roleId) === adding) return unchanged(state, null)
      const roles = adding ? [...member.roles, roleId] : member.roles.filter((id) => id !== roleId)
      const updated: GuildMember = { ...member, roles }
      const changed: GuildState = { ...state, members: state.members.with(targetId, updated) }
      const next = adding ? withRoleGiven(changed, targetId) : changed
      return {
        next,
        reply: null,
        persist: setMemberRoles(context.guildId, targetId, roles),
        audit: [{
          actionType: MEMBER_ROLE_UPDATE,
          targetId,
          changes: [{ key: adding ? "$add" : "$remove", new_value: [{ id: role.id, name: role.name }] }]
        }],
        events: [{ type: "GUILD_MEMBER_UPDATE", data: { guild_id: context.guildId, ...memberView(updated) } }]
      }
    }))

/** PUT /guilds/{id}/members/{user_id}/roles/{role_id}: MANAGE_ROLES, a role below the actor, not a bot's managed role. */
export const addMemberRole = memberRoleChange("AddMemberRole", true)

/** DELETE /guilds/{id}/members/{user_id}/roles/{role_id}: MANAGE_ROLES, a role below the actor. */
export const removeMemberRole = memberRoleChange("RemoveMemberRole", false)

export const memberRoleWrites = [addMemberRole, removeMemberRole] as const
export const memberRoleReads = [] as const
