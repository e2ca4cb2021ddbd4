import { Effect } from "effect"
import type { GuildRole } from "../roles/GuildRole.ts"
import { missingPermissions, unknown } from "../../../src/model/Errors.ts"
import { canGrant, canManageRole } from "../members/Hierarchy.ts"
import type { GuildState } from "../State.ts"

/** Fails with 403 MISSING_PERMISSIONS unless `actorId` may put `permissions` on a role. */
export const requireGrantable = (state: GuildState, actorId: string, permissions: bigint) =>
  canGrant(state, actorId, permissions) ? Effect.void : Effect.fail(missingPermissions())

/** Fails with 403 MISSING_PERMISSIONS unless `actorId` ranks above `role`. */
export const requireManageable = (state: GuildState, actorId: string, role: GuildRole) =>
  canManageRole(state, actorId, role) ? Effect.void : Effect.fail(missingPermissions())

/** The role, or 404 UNKNOWN_ROLE. */
export const findRole = (state: GuildState, roleId: string) => {
  const role = state.roles.get(roleId)
  return role === undefined ? Effect.fail(unknown("ROLE")) : Effect.succeed(role)
}
