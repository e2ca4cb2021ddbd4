/**
 * What the guild keeps of a member beyond GuildMember: the profile
 * text it shows only on profiles, and how the member joined (member search).
 */
export interface MemberProfile {
  readonly bio: string | null
  readonly pronouns: string | null
  /** JoinSourceType (0, 1, 2, 3, 4, 6), null when unknown. */
  readonly joinSourceType: number | null
  readonly sourceInviteCode: string | null
  readonly inviterId: string | null
  /** Joined through a temporary invite and given no role since: removed on going offline (TemporaryMembers.ts). */
  readonly temporary: boolean
}

export const EMPTY_PROFILE: MemberProfile = {
  bio: null,
  pronouns: null,
  joinSourceType: null,
  sourceInviteCode: null,
  inviterId: null,
  temporary: false
}
