import { Schema } from "effect"
import { GuildResponse } from "../../src/model/Guilds.ts"
import { canView } from "./channels/ChannelPermissions.ts"
import { guildPermissions, type GuildState } from "./State.ts"
import { roleView } from "./roles/GuildRole.ts"
import { channelView } from "./channels/GuildChannel.ts"
import { emojiView, stickerView } from "./expressions/ExpressionKinds.ts"
import { type GuildMember, memberView } from "./members/GuildMember.ts"
import type { GuildRecord } from "./GuildRecord.ts"

/**
 * What clients see of a guild, rendered from its state. The state keeps what
 * the actor needs; a view names each field of the response it shows, so a
 * field added to the state is not shown until a view shows it, and a field
 * added to the response does not compile until a view fills it.
 */

/** The guild's name and images: what an invite shows of it, and the start of every view. */
export const identityView = (g: GuildRecord) => ({
  id: g.id,
  name: g.name,
  icon: g.icon,
  banner: g.banner,
  splash: g.splash,
  splash_card_alignment: g.splash_card_alignment,
  embed_splash: g.embed_splash
})

/** The guild as `userId` sees it, with their permissions and every channel. */
export const viewFor = (state: GuildState, userId: string): GuildResponse => {
  const g = state.guild
  return {
    ...identityView(g),
    vanity_url_code: g.vanity_url_code,
    owner_id: g.owner_id,
    system_channel_id: g.system_channel_id,
    system_channel_flags: g.system_channel_flags,
    rules_channel_id: g.rules_channel_id,
    afk_channel_id: g.afk_channel_id,
    afk_timeout: g.afk_timeout,
    features: g.features,
    verification_level: g.verification_level,
    mfa_level: g.mfa_level,
    nsfw_level: g.nsfw_level,
    nsfw: g.nsfw,
    content_warning_level: g.content_warning_level,
    content_warning_text: g.content_warning_text,
    explicit_content_filter: g.explicit_content_filter,
    default_message_notifications: g.default_message_notifications,
    disabled_operations: g.disabled_operations,
    message_history_cutoff: g.message_history_cutoff,
    permissions: guildPermissions(state, userId).toString(),
    roles: Array.from(state.roles.values(), roleView),
    channels: Array.from(state.channels.values(), channelView),
    member_count: state.members.size
  }
}

/** The channels `userId` cannot see (VIEW_CHANNEL, overwrites included). */
const hiddenFrom = (state: GuildState, userId: string): ReadonlySet<string> => {
  const hidden = new Set<string>()
  for (const channel of state.channels.values()) if (!canView(state, userId, channel)) hidden.add(channel.id)
  return hidden
}

/** The guild as the member `userId` sees it: their permissions, and only the channels they can see. */
export const guildViewOfMember = (state: GuildState, userId: string, hidden = hiddenFrom(state, userId)): GuildResponse => {
  const view = viewFor(state, userId)
  return hidden.size === 0 ? view : { ...view, channels: (view.channels ?? []).filter((c) => !hidden.has(c.id)) }
}

const encodeGuild = Schema.encodeSync(GuildResponse)

// States are immutable (every change makes a new one), so a state is the key
// its renderings live and die with.
const rendered = new WeakMap<GuildState, Map<string, string>>()

/**
 * The guild as `userId` sees it, as GuildResponse JSON. Views differ only in
 * the viewer's permissions and the channels hidden from them, so each state
 * renders once per such pair.
 */
export const renderView = (state: GuildState, userId: string): string => {
  const hidden = hiddenFrom(state, userId)
  const key = `${guildPermissions(state, userId)}/${[...hidden].join(",")}`
  let byViewer = rendered.get(state)
  if (byViewer === undefined) {
    byViewer = new Map()
    rendered.set(state, byViewer)
  }
  let json = byViewer.get(key)
  if (json === undefined) {
    json = JSON.stringify(encodeGuild(guildViewOfMember(state, userId, hidden)))
    byViewer.set(key, json)
  }
  return json
}

const expressionsRendered = new WeakMap<GuildState, string>()

/** The guild's emojis and stickers as GUILD_CREATE carries them (as GUILD_EMOJIS_UPDATE does), once per state. */
const expressionsJson = (state: GuildState): string => {
  let json = expressionsRendered.get(state)
  if (json === undefined) {
    const emojis = JSON.stringify(Array.from(state.emojis.values(), emojiView))
    const stickers = JSON.stringify(Array.from(state.stickers.values(), stickerView))
    json = `"emojis":${emojis},"stickers":${stickers}`
    expressionsRendered.set(state, json)
  }
  return json
}

const membersRendered = new WeakMap<GuildState, ReadonlyArray<readonly [string, string]>>()

/**
 * Every member as GUILD_CREATE of a guild that is not large lists them, the viewer's own
 * first (where clients that read only one look); each member's JSON made once per state.
 */
const membersJson = (state: GuildState, viewerId: string, own: string): string => {
  let rendered = membersRendered.get(state)
  if (rendered === undefined) {
    rendered = Array.from(state.members, ([id, m]) => [id, JSON.stringify(memberView(m))] as const)
    membersRendered.set(state, rendered)
  }
  const parts = [own]
  for (const [id, json] of rendered) if (id !== viewerId) parts.push(json)
  return parts.join(",")
}

/**
 * The gateway's GUILD_CREATE of the guild for its member `userId`, as JSON:
 * their view (`renderView`) and what the gateway adds, as Discord's gateway and
 * the production service send it: `unavailable: false` (a guild READY listed as
 * unavailable becomes available), when they joined, whether the guild is large
 * (`largeThreshold` members or more, the session's IDENTIFY says from how many),
 * its members (all of a guild that is not large, theirs first; of a large one only their own,
 * discord.js's `guild.members.me`: the rest come by REQUEST_GUILD_MEMBERS), and
 * the guild's emojis and stickers. Presences and voice states are the gateway's
 * to add (src/gateway/Fanout.ts).
 */
export const renderGuildCreate = (state: GuildState, userId: string, member: GuildMember, largeThreshold: number): string => {
  const view = renderView(state, userId)
  const large = state.members.size >= largeThreshold
  const own = JSON.stringify(memberView(member))
  const members = large ? own : membersJson(state, userId, own)
  return `${view.slice(0, -1)},"unavailable":false,"joined_at":${JSON.stringify(member.joined_at)},"large":${large},` +
    `"members":[${members}],${expressionsJson(state)}}`
}
