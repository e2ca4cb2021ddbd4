import { Effect, Schema } from "effect"
import { ChannelResponse } from "../../../src/model/Guilds.ts"
import { requireMember } from "../Access.ts"
import { channelPermissions } from "../channels/ChannelPermissions.ts"
import { channelView } from "../channels/GuildChannel.ts"
import { read } from "../Definitions.ts"
import { has, Permission } from "../../../src/model/Permissions.ts"

/** What a member may read of a guild's messages, for queries that span channels (search, mentions, saved messages). */
export const ReadableChannels = Schema.Struct({
  /** The channels whose messages the member may read: VIEW_CHANNEL and READ_MESSAGE_HISTORY. */
  channels: Schema.Array(ChannelResponse),
  /** The member's roles, for role mentions. */
  role_ids: Schema.Array(Schema.String)
})
export type ReadableChannels = typeof ReadableChannels.Type

const READ = Permission.VIEW_CHANNEL | Permission.READ_MESSAGE_HISTORY

/**
 * The channels of the guild the viewer may read messages in, decided from the
 * actor's state like every other read, so a query over Postgres afterwards
 * filters by what the permissions say now. 403 MISSING_ACCESS for a non-member.
 */
export const readableChannels = read("ReadableChannels", {}, ReadableChannels, (state, _query, viewerId) =>
  Effect.map(requireMember(state, viewerId), () => ({
    channels: [...state.channels.values()].filter((c) => has(channelPermissions(state, viewerId, c), READ)).map(channelView),
    role_ids: state.members.get(viewerId)?.roles ?? []
  })))

export const messageVisibilityReads = [readableChannels] as const
