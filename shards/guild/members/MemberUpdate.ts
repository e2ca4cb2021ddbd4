import { Effect, Result } from "effect"
import {
  type BadRequest,
  type Forbidden,
  invalidField,
  missingAccess,
  missingPermissions,
  type NotFound,
  unknown
} from "../../../src/model/Errors.ts"
import { canManageRole, outranks } from "./Hierarchy.ts"
import { EMPTY_PROFILE, type MemberProfile } from "./MemberProfile.ts"
import type { GuildMember } from "./GuildMember.ts"
import { isManaged } from "../roles/GuildRole.ts"
import { ALL_PERMISSIONS, has, Permission } from "../../../src/model/Permissions.ts"
import { guildPermissions, type GuildState } from "../State.ts"
import { permissionsAt } from "./Timeouts.ts"
import { canConnect } from "../channels/VoiceAccess.ts"
import { ChannelType } from "../../../src/model/Channels.ts"
import type { MemberPatch } from "../../../src/model/Members.ts"


export const MAX_TIMEOUT_MS = 365 * 24 * 60 * 60 * 1000

/** The fields a patch sets on GuildMember, and those it sets on MemberProfile. */
const MEMBER_FIELDS = ["nick", "mute", "deaf", "communication_disabled_until", "avatar", "banner", "accent_color", "profile_flags"] as const
const PROFILE_FIELDS = ["bio", "pronouns"] as const
const PROFILE_OF_MEMBER = ["avatar", "banner", "accent_color", "profile_flags", "bio", "pronouns"] as const

type Change = { readonly key: string; readonly old_value: unknown; readonly new_value: unknown }

/** A checked update: the member and profile after it, and what changed. */
export interface AppliedUpdate {
  readonly member: GuildMember
  readonly profile: MemberProfile
  readonly changes: ReadonlyArray<Change>
  readonly added: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
}

type UpdateError = BadRequest | Forbidden | NotFound

const present = <K extends keyof MemberPatch>(patch: MemberPatch, key: K): boolean => patch[key] !== undefined

/*
 * The checks are plain functions, not effects: a member update is one of a
 * guild's most frequent writes, and its decision runs inside the actor's batch.
 */

/** Why `actorId` may not make the patch's changes to `targetId` at `now` (permissions, hierarchy), if they may not. */
const refusal = (state: GuildState, actorId: string, targetId: string, patch: MemberPatch, now: number): Forbidden | undefined => {
  const self = actorId === targetId
  const granted = permissionsAt(state, actorId, now)
  const lacks = (bit: bigint) => !has(granted, bit)
  const below = () => !outranks(state, actorId, targetId)
  if (present(patch, "nick")) {
    // Members who may manage nicknames change their own under that permission, timed out or not.
    const own = (guildPermissions(state, actorId) & Permission.MANAGE_NICKNAMES) !== 0n
      ? Permission.MANAGE_NICKNAMES
      : Permission.CHANGE_NICKNAME
    if (self ? lacks(own) : lacks(Permission.MANAGE_NICKNAMES) || below()) return missingPermissions()
  }
  if (present(patch, "roles") && (lacks(Permission.MANAGE_ROLES) || (!self && below()))) return missingPermissions()
  if (present(patch, "communication_disabled_until")) {
    if (lacks(Permission.MODERATE_MEMBERS) || below()) return missingPermissions()
    // Administrators are beyond timeouts; putting one in timeout would mislead.
    if (patch.communication_disabled_until != null && guildPermissions(state, targetId) === ALL_PERMISSIONS) {
      return missingPermissions()
    }
  }
  if (present(patch, "mute") && lacks(Permission.MUTE_MEMBERS)) return missingPermissions()
  if (present(patch, "deaf") && lacks(Permission.DEAFEN_MEMBERS)) return missingPermissions()
  if (present(patch, "channel_id") && lacks(Permission.MOVE_MEMBERS)) return missingPermissions()
  // A member's profile is theirs; a moderator may only clear or replace it from above.
  if (!self && PROFILE_OF_MEMBER.some((key) => present(patch, key)) && (lacks(Permission.MANAGE_NICKNAMES) || below())) {
    return missingPermissions()
  }
  return undefined
}

/** What is wrong with the patch's values against the guild and the clock, if anything. */
const invalidity = (
  state: GuildState,
  actorId: string,
  member: GuildMember,
  patch: MemberPatch,
  now: number
): BadRequest | Forbidden | undefined => {
  const until = patch.communication_disabled_until
  if (until != null) {
    const at = Date.parse(until)
    if (Number.isNaN(at)) return invalidField("communication_disabled_until", "INVALID_ISO_TIMESTAMP", "Not an ISO 8601 timestamp")
    if (at - now > MAX_TIMEOUT_MS) {
      return invalidField("communication_disabled_until", "TIMEOUT_CANNOT_EXCEED_365_DAYS", "A timeout lasts at most 365 days")
    }
  }
  if (patch.channel_id != null) {
    const channel = state.channels.get(patch.channel_id)
    if (channel === undefined) return invalidField("channel_id", "CHANNEL_NOT_FOUND", "Channel is not in this guild")
    if (channel.type !== ChannelType.VOICE) return invalidField("channel_id", "CHANNEL_MUST_BE_VOICE", "Channel is not a voice channel")
    // A member is moved only where they could connect themselves.
    if (!canConnect(state, member.user.id, channel, now)) return missingPermissions()
  }
  if (patch.roles !== undefined) {
    const wanted = new Set(patch.roles)
    for (const [index, roleId] of patch.roles.entries()) {
      if (roleId === state.guild.id || !state.roles.has(roleId)) {
        return invalidField(`roles.${index}`, "INVALID_ROLE_ID", "Role is not in this guild")
      }
    }
    const before = new Set(member.roles)
    const touched = [...wanted].filter((id) => !before.has(id)).concat(member.roles.filter((id) => !wanted.has(id)))
    // A bot's managed role is its own: no one gives or takes it by hand.
    const byHand = (roleId: string) => {
      const role = state.roles.get(roleId)
      return role !== undefined && !isManaged(role) && canManageRole(state, actorId, role)
    }
    if (!touched.every(byHand)) return missingPermissions()
  }
  return undefined
}

const differs = (a: unknown, b: unknown) => JSON.stringify(a ?? null) !== JSON.stringify(b ?? null)

/** Applies `patch` by `actorId` to the member `targetId`, or says why it may not. */
export const memberPatchResult = (
  state: GuildState,
  actorId: string,
  targetId: string,
  patch: MemberPatch,
  now: number
): Result.Result<AppliedUpdate, UpdateError> => {
  if (!state.members.has(actorId)) return Result.fail(missingAccess())
  const member = state.members.get(targetId)
  if (member === undefined) return Result.fail(unknown("MEMBER"))
  const refused = refusal(state, actorId, targetId, patch, now) ?? invalidity(state, actorId, member, patch, now)
  if (refused !== undefined) return Result.fail(refused)
  const profile = state.memberProfiles.get(targetId) ?? EMPTY_PROFILE
  const changes: Array<Change> = []
  let nextMember: GuildMember = member
  for (const key of MEMBER_FIELDS) {
    const value = patch[key]
    if (value !== undefined && differs(member[key], value)) {
      changes.push({ key, old_value: member[key] ?? null, new_value: value })
      nextMember = { ...nextMember, [key]: value }
    }
  }
  let nextProfile = profile
  for (const key of PROFILE_FIELDS) {
    const value = patch[key]
    if (value !== undefined && differs(profile[key], value)) {
      changes.push({ key, old_value: profile[key], new_value: value })
      nextProfile = { ...nextProfile, [key]: value }
    }
  }
  const wanted = patch.roles === undefined ? undefined : [...new Set(patch.roles)]
  const added = wanted === undefined ? [] : wanted.filter((id) => !member.roles.includes(id))
  const removed = wanted === undefined ? [] : member.roles.filter((id) => !wanted.includes(id))
  if (wanted !== undefined && (added.length > 0 || removed.length > 0)) nextMember = { ...nextMember, roles: wanted }
  // A role given ends a temporary membership for good (operations/TemporaryMembers.ts).
  const kept = added.length > 0 && nextProfile.temporary ? { ...nextProfile, temporary: false } : nextProfile
  return Result.succeed({ member: nextMember, profile: kept, changes, added, removed })
}

/** `memberPatchResult` as an effect. */
export const applyMemberPatch = (
  state: GuildState,
  actorId: string,
  targetId: string,
  patch: MemberPatch,
  now: number
): Effect.Effect<AppliedUpdate, UpdateError> => Effect.fromResult(memberPatchResult(state, actorId, targetId, patch, now))
