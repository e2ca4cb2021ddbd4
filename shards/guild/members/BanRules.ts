import type { GuildBanResponse } from "../../../src/model/Bans.ts"
import type { GuildState } from "../State.ts"

/**
 * Bans as plain data: a ban with an expiry stops counting the moment it
 * passes, whether or not its row has been deleted yet.
 */
export type GuildBan = GuildBanResponse

export const isBanActive = (ban: GuildBan, now: number): boolean =>
  ban.expires_at === null || Date.parse(ban.expires_at) > now

/** When a ban given at `now` for `durationSeconds` ends; 0 (or none) is permanent. */
export const banExpiry = (now: number, durationSeconds: number): string | null =>
  durationSeconds > 0 ? new Date(now + durationSeconds * 1000).toISOString() : null

export const isBanned = (state: GuildState, userId: string, now: number): boolean => {
  const ban = state.bans.get(userId)
  return ban !== undefined && isBanActive(ban, now)
}

/** Bans in effect at `now`, in user id order. */
export const activeBans = (state: GuildState, now: number): ReadonlyArray<GuildBan> =>
  [...state.bans.values()]
    .filter((ban) => isBanActive(ban, now))
    .sort((a, b) => (BigInt(a.user.id) < BigInt(b.user.id) ? -1 : 1))

/** The state without the bans that have run out, and those bans. */
export const pruneExpiredBans = (state: GuildState, now: number): { state: GuildState; expired: ReadonlyArray<GuildBan> } => {
  const expired = [...state.bans.values()].filter((ban) => !isBanActive(ban, now))
  if (expired.length === 0) return { state, expired }
  const bans = new Map(state.bans)
  for (const ban of expired) bans.delete(ban.user.id)
  return { state: { ...state, bans }, expired }
}

export const withBan = (state: GuildState, ban: GuildBan): GuildState => ({
  ...state,
  bans: new Map(state.bans).set(ban.user.id, ban)
})

export const withoutBan = (state: GuildState, userId: string): GuildState => {
  const bans = new Map(state.bans)
  bans.delete(userId)
  return { ...state, bans }
}

/** The state without `userId` as a member (and without their member profile). */
export const withoutMember = (state: GuildState, userId: string): GuildState => {
  if (!state.members.has(userId)) return state
  return { ...state, members: state.members.without(userId), memberProfiles: state.memberProfiles.without(userId) }
}
