import { Effect, Schema } from "effect"
import { GuildMemberResponse } from "../../../src/model/Guilds.ts"
import { applyMemberPatch } from "../members/MemberUpdate.ts"
import { read } from "../Definitions.ts"
import { mayStay, voiceAccess } from "../channels/VoiceAccess.ts"
import { visibleChannel } from "../channels/ChannelAccess.ts"
import { CarriedId } from "../../../src/model/Ids.ts"
import { missingPermissions } from "../../../src/model/Errors.ts"
import { has, Permission } from "../../../src/model/Permissions.ts"
import { channelPermissions } from "../channels/ChannelPermissions.ts"

export const VoiceAccessReply = Schema.Struct({
  member: GuildMemberResponse,
  userLimit: Schema.Int,
  bypassesLimit: Schema.Boolean,
  speak: Schema.Boolean,
  stream: Schema.Boolean,
  rtcRegion: Schema.NullOr(Schema.String),
  guildFeatures: Schema.Array(Schema.String)
})

/**
 * The gateway's op 4 asks whether the viewer may join a voice channel (VoiceAccess.ts);
 * a refusal is the error. `now` is the caller's clock: a timeout takes CONNECT away.
 */
export const joinVoice = read(
  "JoinVoice",
  { channelId: CarriedId.ChannelId, now: Schema.Number },
  VoiceAccessReply,
  (state, { channelId, now }, viewerId) => Effect.fromResult(voiceAccess(state, viewerId, channelId, now))
)

/**
 * The voice part of a member PATCH checked alone, exactly as the update checks it
 * (MOVE_MEMBERS, a voice channel of the guild the target may connect to): when the
 * target is not in voice, a mover who may not move them hears why before hearing that.
 */
export const checkVoiceMove = read(
  "CheckVoiceMove",
  { targetId: CarriedId.UserId, channelId: Schema.NullOr(CarriedId.ChannelId), now: Schema.Number },
  Schema.Null,
  (state, { targetId, channelId, now }, viewerId) =>
    Effect.as(applyMemberPatch(state, viewerId, targetId, { channel_id: channelId }, now), null)
)

/** One member in voice, as a re-check asks about them: who, and where they are. */
export const VoiceSeat = Schema.Struct({ userId: Schema.String, channelId: Schema.String })

/**
 * The gateway asks, after a guild event that may change who may be where (a member,
 * role or channel updated), whether those in voice there may stay (VoiceAccess.ts
 * mayStay), all of them in one read: each one's member as it is now, null to
 * disconnect them. Asked by nobody in particular: the viewer is not consulted.
 */
export const recheckVoice = read(
  "RecheckVoice",
  { seats: Schema.Array(VoiceSeat), now: Schema.Number },
  Schema.Array(Schema.NullOr(GuildMemberResponse)),
  (state, { seats, now }) => Effect.succeed(seats.map((seat) => mayStay(state, seat.userId, seat.channelId, now) ?? null))
)

/**
 * GET /channels/{id}/rtc-regions asks, for a channel the viewer can see, what the
 * configured regions' access rules look at: the guild's features.
 */
export const rtcRegionFeatures = read(
  "RtcRegionFeatures",
  { channelId: CarriedId.ChannelId },
  Schema.Array(Schema.String),
  (state, { channelId }, viewerId) => Effect.as(visibleChannel(state, viewerId, channelId), state.guild.features)
)

/**
 * Whether the viewer may see a stream in the voice channel (VIEW_CHANNEL and CONNECT there,
 * as joining takes), and with `upload`, send its preview: STREAM too. A refusal is the error.
 */
export const checkStreamPreview = read(
  "CheckStreamPreview",
  { channelId: CarriedId.ChannelId, now: Schema.Number, upload: Schema.Boolean },
  Schema.Null,
  (state, { channelId, now, upload }, viewerId) =>
    Effect.gen(function*() {
      yield* Effect.fromResult(voiceAccess(state, viewerId, channelId, now))
      const channel = state.channels.get(channelId)
      if (upload && (channel === undefined || !has(channelPermissions(state, viewerId, channel, now), Permission.STREAM))) {
        return yield* missingPermissions()
      }
      return null
    })
)

export const voiceReads = [joinVoice, checkVoiceMove, recheckVoice, rtcRegionFeatures, checkStreamPreview] as const
