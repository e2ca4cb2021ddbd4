import type { GuildChannel, PermissionOverwrite } from "./GuildChannel.ts"
import { ALL_PERMISSIONS, Permission } from "../../../src/model/Permissions.ts"
import { guildPermissions, type GuildState } from "../State.ts"
import { isTimedOut, TIMED_OUT_ALLOWED } from "../members/Timeouts.ts"

export type Overwrite = PermissionOverwrite

export const OVERWRITE_ROLE = 0
export const OVERWRITE_MEMBER = 1

const apply = (granted: bigint, allow: bigint, deny: bigint): bigint => (granted & ~deny) | allow

/**
 * A member's permissions in one channel (conventions.md, Permissions): the
 * guild-level base, then the channel's own overwrites in order: @everyone,
 * the member's roles combined, the member. A channel in a category carries its
 * own overwrites (copied from the category when created in it or synced with
 * lock_permissions), so the category's are not consulted here. Given `now`,
 * a timed-out member keeps only what a timeout leaves (Timeouts.ts). Without
 * VIEW_CHANNEL a member holds nothing else in the channel either (as Discord
 * rules): a channel one cannot see takes no invite, reaction, pin or voice
 * connection, whatever bits the guild level grants.
 */
export const channelPermissions = (
  state: GuildState,
  userId: string,
  channel: Pick<GuildChannel, "permission_overwrites">,
  now?: number
): bigint => {
  const base = guildPermissions(state, userId)
  const member = state.members.get(userId)
  if (state.guild.owner_id === userId || (base & Permission.ADMINISTRATOR) !== 0n) return ALL_PERMISSIONS
  if (member === undefined) return 0n
  const overwrites = channel.permission_overwrites
  let granted = base
  const everyone = overwrites.find((o) => o.type === OVERWRITE_ROLE && o.id === state.guild.id)
  if (everyone !== undefined) granted = apply(granted, BigInt(everyone.allow), BigInt(everyone.deny))
  let roleAllow = 0n
  let roleDeny = 0n
  for (const o of overwrites) {
    if (o.type === OVERWRITE_ROLE && member.roles.includes(o.id)) {
      roleAllow |= BigInt(o.allow)
      roleDeny |= BigInt(o.deny)
    }
  }
  granted = apply(granted, roleAllow, roleDeny)
  const own = overwrites.find((o) => o.type === OVERWRITE_MEMBER && o.id === userId)
  if (own !== undefined) granted = apply(granted, BigInt(own.allow), BigInt(own.deny))
  if ((granted & Permission.VIEW_CHANNEL) === 0n) return 0n
  return now !== undefined && isTimedOut(state, userId, now) ? granted & TIMED_OUT_ALLOWED : granted
}

export const canView = (state: GuildState, userId: string, channel: GuildChannel): boolean =>
  (channelPermissions(state, userId, channel) & Permission.VIEW_CHANNEL) !== 0n
