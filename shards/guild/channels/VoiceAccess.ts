import { Result } from "effect"
import type { GuildMemberResponse } from "../../../src/model/Guilds.ts"
import { memberView } from "../members/GuildMember.ts"
import type { GuildChannel } from "./GuildChannel.ts"
import { invalidField, missingAccess, missingPermissions, unknown } from "../../../src/model/Errors.ts"
import { channelPermissions } from "./ChannelPermissions.ts"
import type { GuildError } from "../Definitions.ts"
import { has, Permission } from "../../../src/model/Permissions.ts"
import { type GuildState } from "../State.ts"
import { ChannelType } from "../../../src/model/Channels.ts"

/**
 * Who may be in a guild's voice channels. Voice states themselves are not
 * guild state (they live with the gateway sessions, src/gateway/VoiceStates.ts):
 * the guild only answers whether a member may connect where they ask to.
 */

/** What being in a voice channel takes there. A timeout leaves neither CONNECT nor anything else but looking. */
export const CONNECT_PERMISSIONS = Permission.VIEW_CHANNEL | Permission.CONNECT

/** Whether `userId` may connect to `channel` at `now`. */
export const canConnect = (state: GuildState, userId: string, channel: GuildChannel, now: number): boolean =>
  has(channelPermissions(state, userId, channel, now), CONNECT_PERMISSIONS)

/** A member's way into a voice channel: who they are in the guild, and the channel's user limit as it binds them. */
export interface VoiceAccess {
  readonly member: GuildMemberResponse
  /** 0: no limit. */
  readonly userLimit: number
  /** MOVE_MEMBERS in the channel: a full channel still lets them in, as on the reference platform. */
  readonly bypassesLimit: boolean
  /** What the media server's join token grants: SPEAK to publish sound, STREAM for video and screens. */
  readonly speak: boolean
  readonly stream: boolean
  /** Where the media server is chosen: the channel's pinned region, and what the regions' rules look at. */
  readonly rtcRegion: string | null
  readonly guildFeatures: ReadonlyArray<string>
}

/** Whether `userId` may join the voice channel `channelId` at `now`, and on what terms; else why not. */
export const voiceAccess = (
  state: GuildState,
  userId: string,
  channelId: string,
  now: number
): Result.Result<VoiceAccess, GuildError> => {
  const member = state.members.get(userId)
  if (member === undefined) return Result.fail(missingAccess())
  const channel = state.channels.get(channelId)
  if (channel === undefined) return Result.fail(unknown("CHANNEL"))
  if (channel.type !== ChannelType.VOICE) return Result.fail(invalidField("channel_id", "CHANNEL_MUST_BE_VOICE", "Channel is not a voice channel"))
  const granted = channelPermissions(state, userId, channel, now)
  if (!has(granted, CONNECT_PERMISSIONS)) return Result.fail(missingPermissions())
  return Result.succeed({
    member: memberView(member),
    userLimit: channel.user_limit ?? 0,
    bypassesLimit: has(granted, Permission.MOVE_MEMBERS),
    speak: has(granted, Permission.SPEAK),
    stream: has(granted, Permission.STREAM),
    rtcRegion: channel.rtc_region ?? null,
    guildFeatures: state.guild.features
  })
}

/**
 * Whether `userId`, in voice in `channelId`, may stay there at `now`: as for joining, a member
 * of the guild with VIEW_CHANNEL and CONNECT in that voice channel (a timeout takes CONNECT),
 * but no user limit: a channel that filled up or had its limit lowered keeps who is inside.
 * Their member as it is now when they may; undefined when they are to be disconnected.
 */
export const mayStay = (state: GuildState, userId: string, channelId: string, now: number): GuildMemberResponse | undefined =>
  Result.match(voiceAccess(state, userId, channelId, now), { onSuccess: (access) => access.member, onFailure: () => undefined })
