import { Effect, Schema } from "effect"
import { GuildMemberResponse } from "../../../src/model/Guilds.ts"
import { invalidField, missingPermissions, unknown } from "../../../src/model/Errors.ts"
import { MemberSearchRequest, MemberSearchResponse } from "../../../src/model/Members.ts"
import { requireMember, requirePermission } from "../Access.ts"
import { withoutMember } from "../members/BanRules.ts"
import { outranks } from "../members/Hierarchy.ts"
import { searchMembers, searchResponseJson } from "../members/MemberSearch.ts"
import { applyMemberPatch } from "../members/MemberUpdate.ts"
import { type GuildMember, memberView } from "../members/GuildMember.ts"
import { MemberPatch } from "../../../src/model/Members.ts"
import { deleteMemberRow, memberRow } from "../members/MemberRows.ts"
import { type AuditEntry, type Decision, type GuildEvent, read, unchanged, write } from "../Definitions.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import { guildPermissions, membersPage, type GuildState } from "../State.ts"
import { botRoleRemoval } from "./BotRoles.ts"
import { CarriedId } from "../../../src/model/Ids.ts"

/** Audit log action types (part C, AuditLogActionType). */
const MEMBER_KICK = 20
const MEMBER_UPDATE = 24
const MEMBER_ROLE_UPDATE = 25
const MEMBER_MOVE = 26
const MEMBER_DISCONNECT = 27

/** Who may search members: anyone who moderates them. */
const SEARCH_PERMISSIONS = Permission.MANAGE_GUILD | Permission.KICK_MEMBERS | Permission.BAN_MEMBERS |
  Permission.MODERATE_MEMBERS

/** GET /guilds/{id}/members: a page in id order, for a member. */
export const listMembers = read(
  "ListMembers",
  { limit: Schema.Int, after: Schema.optional(Schema.String) },
  Schema.Array(GuildMemberResponse),
  (state, { limit, after }, viewerId) =>
    Effect.map(requireMember(state, viewerId), () => membersPage(state, limit, after).map(memberView))
)

/** GET /guilds/{id}/members/{user_id} and @me, for a member. */
export const getMember = read("GetMember", { targetId: CarriedId.UserId }, GuildMemberResponse, (state, { targetId }, viewerId) =>
  Effect.flatMap(requireMember(state, viewerId), () => {
    const found = state.members.get(targetId)
    return found === undefined ? Effect.fail(unknown("MEMBER")) : Effect.succeed(memberView(found))
  }))

/** POST /guilds/{id}/members-search: for members who moderate (any of SEARCH_PERMISSIONS). */
export const searchGuildMembers = read(
  "SearchMembers",
  { request: MemberSearchRequest },
  MemberSearchResponse,
  (state, { request }, viewerId) =>
    Effect.flatMap(requireMember(state, viewerId), () =>
      (guildPermissions(state, viewerId) & SEARCH_PERMISSIONS) === 0n
        ? Effect.fail(missingPermissions())
        : Effect.sync(() => searchMembers(state, request))),
  searchResponseJson
)

const memberEvent = (guildId: string, member: GuildMemberResponse): GuildEvent => ({
  type: "GUILD_MEMBER_UPDATE",
  data: { guild_id: guildId, ...member }
})

/** PATCH /guilds/{id}/members/{user_id} and @me: each field under its own permission (MemberUpdate.ts). */
export const updateMember = write(
  "UpdateMember",
  { targetId: CarriedId.UserId, patch: MemberPatch },
  GuildMemberResponse,
  (state, { targetId, patch }, context) =>
    Effect.map(applyMemberPatch(state, context.actorId, targetId, patch, context.now), (applied): Decision<GuildMemberResponse> => {
      const audit: Array<AuditEntry> = []
      if (applied.changes.length > 0) audit.push({ actionType: MEMBER_UPDATE, targetId, changes: applied.changes })
      if (applied.added.length > 0 || applied.removed.length > 0) {
        audit.push({
          actionType: MEMBER_ROLE_UPDATE,
          targetId,
          changes: [{ key: "roles", new_value: { added: applied.added, removed: applied.removed } }]
        })
      }
      // The move itself is the gateway's (voice states are not guild state): src/members/VoiceMoves.ts.
      if (patch.channel_id !== undefined) {
        audit.push(patch.channel_id === null
          ? { actionType: MEMBER_DISCONNECT, targetId: null, changes: [], options: { count: "1" } }
          : { actionType: MEMBER_MOVE, targetId: null, changes: [], options: { channel_id: patch.channel_id, count: "1" } })
      }
      // Rendered once: the reply and the event show the same member.
      const shown = memberView(applied.member)
      if (audit.length === 0) return unchanged(state, shown)
      const next: GuildState = {
        ...state,
        members: state.members.with(targetId, applied.member),
        memberProfiles: state.memberProfiles.with(targetId, applied.profile)
      }
      return {
        next,
        reply: shown,
        rows: [memberRow(targetId, applied.member, applied.profile)],
        audit,
        events: [memberEvent(context.guildId, shown)]
      }
    })
)

const removeEvent = (guildId: string, member: GuildMember): GuildEvent => ({
  type: "GUILD_MEMBER_REMOVE",
  data: { guild_id: guildId, user: member.user }
})

/** `member` leaves the guild (kicked, left, or a temporary membership over): state, row and event; a bot's role goes too. */
export const memberRemoval = (state: GuildState, guildId: string, member: GuildMember, audit: ReadonlyArray<AuditEntry>): Decision<null> => {
  const botRole = botRoleRemoval(withoutMember(state, member.user.id), guildId, member.user.id)
  return {
    next: botRole.next,
    reply: null,
    persist: Effect.andThen(deleteMemberRow(guildId, member.user.id), botRole.persist),
    audit,
    events: [removeEvent(guildId, member), ...botRole.events]
  }
}

/** DELETE /guilds/{id}/members/{user_id}: KICK_MEMBERS over a member ranked below; never the owner. */
export const kickMember = write("KickMember", { targetId: CarriedId.UserId }, Schema.Null, (state, { targetId }, context) =>
  Effect.gen(function*() {
    yield* requirePermission(state, context.actorId, Permission.KICK_MEMBERS, context.now)
    const member = state.members.get(targetId)
    if (member === undefined) return yield* Effect.fail(unknown("MEMBER"))
    if (!outranks(state, context.actorId, targetId)) return yield* Effect.fail(missingPermissions())
    return memberRemoval(state, context.guildId, member, [{ actionType: MEMBER_KICK, targetId, changes: [] }])
  }))

/** DELETE /users/@me/guilds/{id}: any member but the owner (who must transfer the guild first). */
export const leaveGuild = write("LeaveGuild", {}, Schema.Null, (state, _command, context) =>
  Effect.gen(function*() {
    yield* requireMember(state, context.actorId)
    const member = state.members.get(context.actorId)
    if (member === undefined) return yield* Effect.fail(unknown("GUILD"))
    if (state.guild.owner_id === context.actorId) {
      return yield* invalidField("guild_id", "CANNOT_LEAVE_GUILD_AS_OWNER", "The owner cannot leave; transfer the guild first")
    }
    return memberRemoval(state, context.guildId, member, [])
  }))

export const membersWrites = [updateMember, kickMember, leaveGuild] as const
export const membersReads = [listMembers, getMember, searchGuildMembers] as const
