import { ALL_PERMISSIONS, Permission } from "../../../src/model/Permissions.ts"
import { guildPermissions, type GuildState } from "../State.ts"

/** What a timed-out member keeps: they may look, not act. */
export const TIMED_OUT_ALLOWED = Permission.VIEW_CHANNEL | Permission.READ_MESSAGE_HISTORY

/** Whether the member's timeout (communication_disabled_until) runs past `now` (ms since the epoch). */
export const isTimedOut = (state: GuildState, userId: string, now: number): boolean => {
  const until = state.members.get(userId)?.communication_disabled_until
  return until != null && Date.parse(until) > now
}

/**
 * Guild-level permissions at `now`: a timed-out member keeps only
 * TIMED_OUT_ALLOWED, except the owner and administrators, whom a timeout does not bind.
 */
export const permissionsAt = (state: GuildState, userId: string, now: number): bigint => {
  const granted = guildPermissions(state, userId)
  if (granted === ALL_PERMISSIONS || !isTimedOut(state, userId, now)) return granted
  return granted & TIMED_OUT_ALLOWED
}
