import { Effect, Schema } from "effect"
import { BadRequest, missingPermissions, unknown } from "../../../src/model/Errors.ts"
import { CarriedId } from "../../../src/model/Ids.ts"
import { UserPartialResponse } from "../../../src/model/Users.ts"
import { admit, MAX_MEMBERS } from "../members/Admission.ts"
import { type GuildState } from "../State.ts"
import { unchanged, write } from "../Definitions.ts"
import { banDecision, BanFields } from "./Bans.ts"
import { memberRemoval } from "./Members.ts"

/**
 * Operators' membership changes (/admin/guilds/*): a member's removal and ban
 * as a moderator's (same rows, audit entries and events) without the
 * moderator's permission or rank; a join without an invite.
 */

/** Audit log action types (part C, AuditLogActionType). */
const MEMBER_KICK = 20

/** JoinSourceType 0: no recorded way in (JoinSources.ts); an operator's addition is none of the others. */
const JOIN_SOURCE_NONE = 0

/**
 * The owner holds the guild: they leave it only after a transfer. Refused as a
 * moderator is refused over the owner (the owner outranks everyone).
 */
const refuseOwner = (state: GuildState, userId: string) =>
  state.guild.owner_id === userId ? Effect.fail(missingPermissions()) : Effect.void

/** POST /admin/guilds/kick-member */
export const adminKickMember = write("AdminKickMember", { targetId: CarriedId.UserId }, Schema.Null, (state, { targetId }, context) =>
  Effect.gen(function*() {
    const member = state.members.get(targetId)
    if (member === undefined) return yield* unknown("MEMBER")
    yield* refuseOwner(state, targetId)
    return memberRemoval(state, context.guildId, member, [{ actionType: MEMBER_KICK, targetId, changes: [] }])
  }))

/** POST /admin/guilds/ban-member: a member or not; never the owner. */
export const adminBanMember = write("AdminBanMember", BanFields, Schema.Null, (state, command, context) =>
  Effect.map(refuseOwner(state, command.target.id), () => banDecision(state, command, context)))

/**
 * POST /admin/guilds/force-add-user and the bulk form: `user` joins as if they
 * had; a ban does not keep them out (production's admin join skips it), a full
 * guild does. A member already changes nothing.
 */
export const adminAddMember = write("AdminAddMember", { user: UserPartialResponse }, Schema.Null, (state, { user }, context) =>
  Effect.gen(function*() {
    if (state.members.has(user.id)) return unchanged(state, null)
    if (state.members.size >= MAX_MEMBERS && !state.guild.features.includes("LARGE_GUILD_OVERRIDE")) {
      return yield* new BadRequest({ code: "MAX_GUILD_MEMBERS", message: `Maximum number of members reached (${MAX_MEMBERS})` })
    }
    const joined = admit(state, context.guildId, user, { joinSourceType: JOIN_SOURCE_NONE, sourceInviteCode: null, inviterId: null }, context.now)
    return { ...joined, reply: null, audit: [] }
  }))

export const adminMembersWrites = [adminKickMember, adminBanMember, adminAddMember] as const
