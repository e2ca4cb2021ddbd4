import type { GuildInviteMetadataResponse, GuildInviteResponse } from "../../../src/model/Invites.ts"
import type { UserPartialResponse } from "../../../src/model/Users.ts"
import { type GuildState } from "../State.ts"
import { identityView } from "../Views.ts"
import { ChannelType } from "../../../src/model/Channels.ts"

/**
 * Invites as plain data. An invite past its max_age or out of uses is dead:
 * it no longer resolves, lists or admits, whether or not its row is gone yet.
 */
export interface GuildInvite {
  readonly code: string
  readonly channelId: string
  readonly inviter: UserPartialResponse | null
  readonly createdAt: string
  /** Seconds; 0 never expires. */
  readonly maxAge: number
  /** 0 is unlimited. */
  readonly maxUses: number
  readonly uses: number
  readonly temporary: boolean
}


/** GuildOperations bit: instant invites switched off. */
const DISABLED_INSTANT_INVITES = 8

export const inviteExpiresAt = (invite: GuildInvite): string | null =>
  invite.maxAge > 0 ? new Date(Date.parse(invite.createdAt) + invite.maxAge * 1000).toISOString() : null

export const isInviteUsable = (invite: GuildInvite, now: number): boolean => {
  const expiresAt = inviteExpiresAt(invite)
  return (expiresAt === null || Date.parse(expiresAt) > now) && (invite.maxUses === 0 || invite.uses < invite.maxUses)
}

export const invitesDisabled = (state: GuildState): boolean =>
  state.guild.features.includes("INVITES_DISABLED") || (state.guild.disabled_operations & DISABLED_INSTANT_INVITES) !== 0

/** The guild's vanity URL as an invite: no expiry, no use limit, into the system channel (or the first text channel). */
export const vanityInvite = (state: GuildState, code: string): GuildInvite | undefined => {
  if (state.guild.vanity_url_code === null || state.guild.vanity_url_code !== code) return undefined
  const system = state.guild.system_channel_id === null ? undefined : state.channels.get(state.guild.system_channel_id)
  const channel = system ?? [...state.channels.values()].find((c) => c.type === ChannelType.TEXT)
  if (channel === undefined) return undefined
  return { code, channelId: channel.id, inviter: null, createdAt: state.createdAt, maxAge: 0, maxUses: 0, uses: 0, temporary: false }
}

/** A live invite or the vanity URL by code. */
export const findInvite = (state: GuildState, code: string, now: number): GuildInvite | undefined => {
  const invite = state.invites.get(code) ?? vanityInvite(state, code)
  return invite !== undefined && isInviteUsable(invite, now) ? invite : undefined
}

export interface InviteSettings {
  readonly channelId: string
  readonly maxAge: number
  readonly maxUses: number
  readonly temporary: boolean
}

/** A live invite by the same inviter with the same settings: what a non-unique create answers. */
export const reusableInvite = (
  state: GuildState,
  inviterId: string,
  settings: InviteSettings,
  now: number
): GuildInvite | undefined =>
  [...state.invites.values()].find((invite) =>
    invite.inviter?.id === inviterId && invite.channelId === settings.channelId && invite.maxAge === settings.maxAge &&
    invite.maxUses === settings.maxUses && invite.temporary === settings.temporary && invite.uses === 0 &&
    isInviteUsable(invite, now)
  )

/** Live invites, oldest first, optionally of one channel. */
export const liveInvites = (state: GuildState, now: number, channelId?: string): ReadonlyArray<GuildInvite> =>
  [...state.invites.values()]
    .filter((invite) => isInviteUsable(invite, now) && (channelId === undefined || invite.channelId === channelId))
    .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt))

/** The state without dead invites, and the codes dropped. */
export const pruneDeadInvites = (state: GuildState, now: number): { state: GuildState; dead: ReadonlyArray<string> } => {
  const dead = [...state.invites.values()].filter((invite) => !isInviteUsable(invite, now)).map((invite) => invite.code)
  if (dead.length === 0) return { state, dead }
  const invites = new Map(state.invites)
  for (const code of dead) invites.delete(code)
  return { state: { ...state, invites }, dead }
}

export const inviteView = (state: GuildState, invite: GuildInvite): GuildInviteResponse => {
  const channel = state.channels.get(invite.channelId)
  const g = state.guild
  return {
    code: invite.code,
    type: 0,
    guild: { ...identityView(g), features: g.features },
    channel: { id: invite.channelId, name: channel?.name ?? null, type: channel?.type ?? ChannelType.TEXT },
    inviter: invite.inviter,
    member_count: state.members.size,
    // Presence is the gateway's; no member is counted online until it reports them.
    presence_count: 0,
    expires_at: inviteExpiresAt(invite),
    temporary: invite.temporary
  }
}

export const inviteMetadata = (state: GuildState, invite: GuildInvite): GuildInviteMetadataResponse => ({
  ...inviteView(state, invite),
  created_at: invite.createdAt,
  uses: invite.uses,
  max_uses: invite.maxUses,
  max_age: invite.maxAge
})
