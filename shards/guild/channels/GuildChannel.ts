import type { ChannelResponse } from "../../../src/model/Guilds.ts"

/** A permission overwrite on a channel: a role's or a member's allowed and denied bits, as decimal text. */
export interface PermissionOverwrite {
  readonly id: string
  readonly type: number
  readonly allow: string
  readonly deny: string
}

/**
 * A channel as the guild actor keeps it: the columns of `channels` it loads
 * (ChannelRows.ts) and its writes set. The variant fields are kept only where
 * the channel has them: a field absent here is absent from what clients see,
 * a field set to null is shown as null. What clients see of a channel is
 * `channelView` of it.
 */
export interface GuildChannel {
  readonly id: string
  readonly guild_id: string
  /** Absent for a stored channel without a name. */
  readonly name?: string
  readonly topic: string | null
  readonly type: number
  readonly position: number
  readonly parent_id: string | null
  readonly nsfw: boolean
  readonly permission_overwrites: ReadonlyArray<PermissionOverwrite>
  readonly url?: string | null
  readonly bitrate?: number | null
  readonly user_limit?: number | null
  readonly rate_limit_per_user?: number
  readonly rtc_region?: string | null
}

/** The channel as clients see it (ChannelResponse); a field the channel does not have is left out, not undefined. */
export const channelView = (channel: GuildChannel): ChannelResponse => ({
  id: channel.id,
  guild_id: channel.guild_id,
  ...(channel.name === undefined ? {} : { name: channel.name }),
  topic: channel.topic,
  type: channel.type,
  position: channel.position,
  parent_id: channel.parent_id,
  nsfw: channel.nsfw,
  permission_overwrites: channel.permission_overwrites,
  ...(channel.url === undefined ? {} : { url: channel.url }),
  ...(channel.bitrate === undefined ? {} : { bitrate: channel.bitrate }),
  ...(channel.user_limit === undefined ? {} : { user_limit: channel.user_limit }),
  ...(channel.rate_limit_per_user === undefined ? {} : { rate_limit_per_user: channel.rate_limit_per_user }),
  ...(channel.rtc_region === undefined ? {} : { rtc_region: channel.rtc_region })
})
