import { Schema } from "effect"
import { GuildResponse } from "../../src/model/Guilds.ts"
import { canView } from "./channels/ChannelPermissions.ts"
import { guildPermissions, type GuildState } from "./State.ts"
import { roleView } from "./roles/GuildRole.ts"
import { channelView } from "./channels/GuildChannel.ts"
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
