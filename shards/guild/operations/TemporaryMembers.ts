import { Effect, Schema } from "effect"
import { unchanged, write } from "../Definitions.ts"
import type { GuildState } from "../State.ts"
import { memberRemoval } from "./Members.ts"

/**
 * Temporary membership: who joined through a temporary invite is a member
 * until they go offline (src/invites/TemporaryMembers.ts calls in), unless a
 * role was given to them meanwhile, which makes them a member for good.
 */

/** Whether `userId` is a member here only until they go offline. */
export const isTemporary = (state: GuildState, userId: string): boolean =>
  state.memberProfiles.get(userId)?.temporary === true && state.guild.owner_id !== userId

/** `state` after a role was given to `userId`: no longer temporary (the rows clear it in SQL, RoleRows.ts). */
export const withRoleGiven = (state: GuildState, userId: string): GuildState => {
  const profile = state.memberProfiles.get(userId)
  if (profile === undefined || !profile.temporary) return state
  return { ...state, memberProfiles: state.memberProfiles.with(userId, { ...profile, temporary: false }) }
}

/**
 * The acting user went offline: if they are a temporary member, they leave, as
 * with DELETE /users/@me/guilds/{id} (GUILD_MEMBER_REMOVE, no audit entry: no
 * moderator acted). Answers whether they were removed; a member for good, or
 * no member, changes nothing, so a late or repeated call is harmless.
 */
export const endTemporaryMembership = write("EndTemporaryMembership", {}, Schema.Boolean, (state, _command, context) => {
  const member = state.members.get(context.actorId)
  if (member === undefined || !isTemporary(state, context.actorId) || member.roles.length > 0) {
    return Effect.succeed(unchanged(state, false))
  }
  return Effect.succeed({ ...memberRemoval(state, context.guildId, member, []), reply: true })
})

export const temporaryMembersWrites = [endTemporaryMembership] as const
