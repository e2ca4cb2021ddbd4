import type { UserPartialResponse } from "../../src/model/Users.ts"
import type { GuildEmoji, GuildSticker } from "../../src/model/Expressions.ts"
import { ALL_PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS, Permission } from "../../src/model/Permissions.ts"
import type { MemberProfile } from "./members/MemberProfile.ts"
import type { GuildMember } from "./members/GuildMember.ts"
import { type LatestSearchIndex, noSearchIndex } from "./members/SearchIndex.ts"
import type { GuildBan } from "./members/BanRules.ts"
import type { GuildInvite } from "./members/InviteRules.ts"
import { SharedMap } from "./SharedMap.ts"
import type { ChannelMessages } from "./messages/MessageWindow.ts"
import { ChannelType } from "../../src/model/Channels.ts"
import type { GuildRecord, GuildRecordChange } from "./GuildRecord.ts"
import type { GuildRole } from "./roles/GuildRole.ts"
import type { GuildChannel } from "./channels/GuildChannel.ts"
import type { GuildWebhook } from "./webhooks/GuildWebhook.ts"

/**
 * A guild's state as plain data, and the pure transitions on it: everything
 * here is testable without a cluster, a database or a clock.
 * What clients see of it are views rendered from it (Views.ts).
 */
export interface GuildState {
  /** The guild's settings and identity: one field per column of `guilds` (GuildRecord.ts). */
  readonly guild: GuildRecord
  readonly createdAt: string
  readonly roles: ReadonlyMap<string, GuildRole>
  readonly channels: ReadonlyMap<string, GuildChannel>
  /** Shared maps: the writes a big guild takes most often change one member. Shown by `memberView` (GuildMember.ts). */
  readonly members: SharedMap<string, GuildMember>
  /** Bio, pronouns and join source by user id; a member without an entry has EMPTY_PROFILE. */
  readonly memberProfiles: SharedMap<string, MemberProfile>
  /** Bans by user id, expired ones included until a write prunes them. */
  readonly bans: ReadonlyMap<string, GuildBan>
  /** Invites by code (the vanity URL is not one of them). */
  readonly invites: ReadonlyMap<string, GuildInvite>
  /** Custom emojis and stickers by id (src/expressions). */
  readonly emojis: ReadonlyMap<string, GuildEmoji>
  readonly stickers: ReadonlyMap<string, GuildSticker>
  /** Each channel's newest messages and last message id (MessageWindow.ts); a channel without an entry has none. */
  readonly channelMessages: SharedMap<string, ChannelMessages>
  /** Incoming webhooks by id (operations/Webhooks.ts). */
  readonly webhooks: ReadonlyMap<string, GuildWebhook>
  /** Not state: the member-search index of the latest states, shared by every state made from this one (SearchIndex.ts). */
  readonly latestSearchIndex: LatestSearchIndex
}


export interface NewGuild {
  readonly guildId: string
  readonly channelId: string
  readonly owner: UserPartialResponse
  readonly name: string
  readonly icon: string | null
  readonly now: string
}

/** A new guild: its @everyone role (id = guild id), a text channel, the owner as member. */
export const createGuild = (input: NewGuild): GuildState => {
  const everyone: GuildRole = {
    id: input.guildId,
    name: "@everyone",
    color: 0,
    position: 0,
    permissions: DEFAULT_EVERYONE_PERMISSIONS.toString(),
    hoist: false,
    mentionable: false,
    // As Repo.load reads it back: the same role before and after a reload.
    hoist_position: null,
    unicode_emoji: null
  }
  const general: GuildChannel = {
    id: input.channelId,
    guild_id: input.guildId,
    name: "general",
    topic: null,
    type: ChannelType.TEXT,
    position: 0,
    parent_id: null,
    nsfw: false,
    permission_overwrites: []
  }
  // Left out until set, so shown without them (memberView); a reload reads them back as null.
  const owner: GuildMember = {
    user: input.owner,
    nick: null,
    roles: [],
    joined_at: input.now,
    mute: false,
    deaf: false
  }
  return {
    guild: {
      id: input.guildId,
      name: input.name,
      icon: input.icon,
      banner: null,
      splash: null,
      splash_card_alignment: 0,
      embed_splash: null,
      vanity_url_code: null,
      owner_id: input.owner.id,
      system_channel_id: input.channelId,
      system_channel_flags: 0,
      rules_channel_id: null,
      afk_channel_id: null,
      afk_timeout: 300,
      features: [],
      verification_level: 0,
      mfa_level: 0,
      nsfw_level: 0,
      nsfw: false,
      content_warning_level: 0,
      content_warning_text: null,
      explicit_content_filter: 0,
      default_message_notifications: 0,
      disabled_operations: 0,
      message_history_cutoff: null
    },
    createdAt: input.now,
    roles: new Map([[everyone.id, everyone]]),
    channels: new Map([[general.id, general]]),
    members: SharedMap.from([[owner.user.id, owner]]),
    memberProfiles: SharedMap.empty(),
    bans: new Map(),
    invites: new Map(),
    emojis: new Map(),
    stickers: new Map(),
    channelMessages: SharedMap.empty(),
    webhooks: new Map(),
    latestSearchIndex: noSearchIndex()
  }
}

/** Guild-level permissions (conventions.md): owner all, non-member none, ADMINISTRATOR all. */
export const guildPermissions = (state: GuildState, userId: string): bigint => {
  if (state.guild.owner_id === userId) return ALL_PERMISSIONS
  const member = state.members.get(userId)
  if (member === undefined) return 0n
  let granted = BigInt(state.roles.get(state.guild.id)?.permissions ?? "0")
  for (const roleId of member.roles) {
    const role = state.roles.get(roleId)
    if (role !== undefined) granted |= BigInt(role.permissions)
  }
  return (granted & Permission.ADMINISTRATOR) !== 0n ? ALL_PERMISSIONS : granted
}

/** Members in id order after `after`, at most `limit` of them. */
export const membersPage = (
  state: GuildState,
  limit: number,
  after: string | undefined
): ReadonlyArray<GuildMember> => {
  const floor = after === undefined ? -1n : BigInt(after)
  return [...state.members.values()]
    .filter((m) => BigInt(m.user.id) > floor)
    .sort((a, b) => (BigInt(a.user.id) < BigInt(b.user.id) ? -1 : 1))
    .slice(0, limit)
}

/** The settings a guild PATCH may change: the record less its identity, owner and vanity code. */
export type SettingsPatch = Omit<GuildRecordChange, "owner_id" | "vanity_url_code">

/** Why a patch cannot apply: the field and its validation code. */
export interface PatchRejection {
  readonly path: string
  readonly code: string
  readonly message: string
}

/** Checks a settings patch against the guild's channels and clock; undefined when it may apply. */
export const checkPatch = (state: GuildState, patch: SettingsPatch, now: number): PatchRejection | undefined => {
  const channelRule = (path: string, id: string | null | undefined, type: number, inGuild: string, wrongType: string) => {
    if (id == null) return undefined
    const channel = state.channels.get(id)
    if (channel === undefined) return { path, code: inGuild, message: "Channel must be in this guild" }
    if (channel.type !== type) return { path, code: wrongType, message: "Channel is of the wrong type" }
    return undefined
  }
  const system = channelRule(
    "system_channel_id",
    patch.system_channel_id,
    ChannelType.TEXT,
    "SYSTEM_CHANNEL_MUST_BE_IN_GUILD",
    "SYSTEM_CHANNEL_MUST_BE_TEXT"
  )
  if (system) return system
  const afk = channelRule(
    "afk_channel_id",
    patch.afk_channel_id,
    ChannelType.VOICE,
    "AFK_CHANNEL_MUST_BE_IN_GUILD",
    "AFK_CHANNEL_MUST_BE_VOICE"
  )
  if (afk) return afk
  if (patch.message_history_cutoff != null) {
    const at = Date.parse(patch.message_history_cutoff)
    if (Number.isNaN(at)) {
      return { path: "message_history_cutoff", code: "INVALID_ISO_TIMESTAMP", message: "Not an ISO 8601 timestamp" }
    }
    if (at > now) {
      return { path: "message_history_cutoff", code: "MESSAGE_HISTORY_CUTOFF_IN_FUTURE", message: "Cutoff is in the future" }
    }
    if (at < Date.parse(state.createdAt)) {
      return {
        path: "message_history_cutoff",
        code: "MESSAGE_HISTORY_CUTOFF_BEFORE_GUILD_CREATION",
        message: "Cutoff is before the guild was created"
      }
    }
  }
  return undefined
}

export const applyPatch = (state: GuildState, change: GuildRecordChange): GuildState => ({
  ...state,
  guild: { ...state.guild, ...change }
})
