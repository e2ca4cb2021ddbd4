import type { GuildRole } from "../roles/GuildRole.ts"
import { ALL_PERMISSIONS } from "../../../src/model/Permissions.ts"
import { guildPermissions, type GuildState } from "../State.ts"

/**
 * The role hierarchy: who may act on whom. A role ranks by position (higher is
 * higher); equal positions rank the older role (lower id) higher, so a new
 * role at an existing position lands just below the roles already there.
 */

/** Negative when `a` ranks above `b`, positive when below, 0 for the same role: sorts roles highest first. */
export const compareRoles = (a: GuildRole, b: GuildRole): number => {
  if (a.position !== b.position) return b.position - a.position
  const ia = BigInt(a.id)
  const ib = BigInt(b.id)
  return ia < ib ? -1 : ia > ib ? 1 : 0
}

export const isEveryone = (state: GuildState, roleId: string): boolean => roleId === state.guild.id

/** The member's highest role; @everyone for a member without roles, undefined for a non-member. */
export const highestRole = (state: GuildState, userId: string): GuildRole | undefined => {
  const member = state.members.get(userId)
  if (member === undefined) return undefined
  let highest = state.roles.get(state.guild.id)
  for (const roleId of member.roles) {
    const role = state.roles.get(roleId)
    if (role !== undefined && (highest === undefined || compareRoles(role, highest) < 0)) highest = role
  }
  return highest
}

/** The position of the member's highest role: 0 with none, -1 for a non-member. */
export const highestPosition = (state: GuildState, userId: string): number => highestRole(state, userId)?.position ?? -1

/**
 * Whether `actorId` may create, edit, delete, move, grant or remove `role` (the
 * role or its id): the owner always, others only roles below their highest.
 * An id that names no role of the guild is not manageable.
 */
export const canManageRole = (state: GuildState, actorId: string, role: GuildRole | string): boolean => {
  const target = typeof role === "string" ? state.roles.get(role) : role
  if (target === undefined) return false
  if (state.guild.owner_id === actorId) return true
  const mine = highestRole(state, actorId)
  return mine !== undefined && compareRoles(mine, target) < 0
}

/**
 * Whether `actorId` ranks above `targetId` (kicks, bans, nicknames): nobody
 * outranks the owner or themselves; a member outranks a non-member (a ban of
 * someone who left has no roles to compare).
 */
export const outranks = (state: GuildState, actorId: string, targetId: string): boolean => {
  if (actorId === targetId || state.guild.owner_id === targetId) return false
  if (state.guild.owner_id === actorId) return true
  const mine = highestRole(state, actorId)
  if (mine === undefined) return false
  const theirs = highestRole(state, targetId)
  return theirs === undefined || compareRoles(mine, theirs) < 0
}

/** Whether `actorId` may put `permissions` on a role: only bits they hold (the owner and ADMINISTRATOR hold all). */
export const canGrant = (state: GuildState, actorId: string, permissions: bigint): boolean =>
  (permissions & ~guildPermissions(state, actorId) & ALL_PERMISSIONS) === 0n
