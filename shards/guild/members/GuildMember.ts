import type { GuildMemberResponse } from "../../../src/model/Guilds.ts"
import type { UserPartialResponse } from "../../../src/model/Users.ts"

/**
 * A member as the guild actor keeps it: the columns of `guild_members` it
 * loads (MemberRows.ts) and its writes set, with the member's user. The
 * profile text and how they joined are kept apart (MemberProfile.ts). A field
 * absent here (the owner of a guild created since the actor started has no
 * avatar, banner... until one is set) is absent from what clients see; a
 * field set to null is shown as null. What clients see of a member is
 * `memberView` of it.
 */
export interface GuildMember {
  readonly user: UserPartialResponse
  readonly nick?: string | null
  readonly avatar?: string | null
  readonly banner?: string | null
  readonly accent_color?: number | null
  /** Role ids, @everyone not among them. */
  readonly roles: ReadonlyArray<string>
  readonly joined_at: string
  readonly mute: boolean
  readonly deaf: boolean
  /** The end of the member's timeout (Timeouts.ts); null or absent when none was set. */
  readonly communication_disabled_until?: string | null
  readonly profile_flags?: number | null
}

/**
 * The member as clients see it (GuildMemberResponse), in the response's field
 * order; a field the member does not have is left out, not undefined. Rendered
 * on demand, not kept: a guild keeps thousands of members and shows few at a
 * time, and a view shares the member's user and roles, so it costs one object.
 */
export const memberView = (member: GuildMember): GuildMemberResponse =>
  // Loaded and admitted members have every field: they take the one-literal path.
  member.nick !== undefined && member.avatar !== undefined && member.banner !== undefined &&
    member.accent_color !== undefined && member.communication_disabled_until !== undefined &&
    member.profile_flags !== undefined
    ? {
      user: member.user,
      nick: member.nick,
      avatar: member.avatar,
      banner: member.banner,
      accent_color: member.accent_color,
      roles: member.roles,
      joined_at: member.joined_at,
      mute: member.mute,
      deaf: member.deaf,
      communication_disabled_until: member.communication_disabled_until,
      profile_flags: member.profile_flags
    }
    : {
      user: member.user,
      ...(member.nick === undefined ? {} : { nick: member.nick }),
      ...(member.avatar === undefined ? {} : { avatar: member.avatar }),
      ...(member.banner === undefined ? {} : { banner: member.banner }),
      ...(member.accent_color === undefined ? {} : { accent_color: member.accent_color }),
      roles: member.roles,
      joined_at: member.joined_at,
      mute: member.mute,
      deaf: member.deaf,
      ...(member.communication_disabled_until === undefined
        ? {}
        : { communication_disabled_until: member.communication_disabled_until }),
      ...(member.profile_flags === undefined ? {} : { profile_flags: member.profile_flags })
    }
