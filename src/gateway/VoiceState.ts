import { Schema } from "effect"
import { GuildMemberResponse } from "../model/Guilds.ts"
import { ChannelId, GuildId } from "../model/Ids.ts"

/** Op 4's data (conventions.md, Gateway): join, move within or leave (`channel_id: null`) a guild's voice. */
export const VoiceStateRequest = Schema.Struct({
  /** Null is a DM call's voice, which this server does not carry. */
  guild_id: Schema.NullOr(GuildId),
  channel_id: Schema.NullOr(ChannelId),
  self_mute: Schema.optional(Schema.Boolean),
  self_deaf: Schema.optional(Schema.Boolean)
})
export type VoiceStateRequest = typeof VoiceStateRequest.Type
export const decodeVoiceStateRequest = Schema.decodeUnknownOption(VoiceStateRequest)

/**
 * A member in a guild's voice channel, held by one gateway session (signalling
 * only: there is no media server). `mute` and `deaf` are the server's, from the
 * member; `self_*` the client's own.
 */
export const VoiceState = Schema.Struct({
  guild_id: Schema.String,
  channel_id: Schema.String,
  user_id: Schema.String,
  session_id: Schema.String,
  mute: Schema.Boolean,
  deaf: Schema.Boolean,
  self_mute: Schema.Boolean,
  self_deaf: Schema.Boolean,
  /** The member as they were when last seen here: VOICE_STATE_UPDATE carries it. */
  member: GuildMemberResponse
})
export type VoiceState = typeof VoiceState.Type
export const decodeVoiceState = Schema.decodeUnknownOption(Schema.fromJsonString(VoiceState))

/** The fields the reference platform sends that no state here changes. */
const FIXED = { self_video: false, self_stream: false, suppress: false, request_to_speak_timestamp: null } as const

const wire = (state: VoiceState, channelId: string | null) => {
  const { member: _member, ...rest } = state
  return { ...rest, channel_id: channelId, ...FIXED }
}

/** VOICE_STATE_UPDATE's data: the state with its member; `left` says the user is in no channel any more. */
export const voiceStateUpdate = (state: VoiceState, left = false): string =>
  JSON.stringify({ ...wire(state, left ? null : state.channel_id), member: state.member })

/** One entry of GUILD_CREATE's `voice_states` (the members travel apart, as on the reference platform). */
export const voiceStateEntry = (state: VoiceState): string => JSON.stringify(wire(state, state.channel_id))

/** Whether two states show the same to clients (the member aside). */
export const sameVoiceState = (a: VoiceState, b: VoiceState): boolean =>
  a.channel_id === b.channel_id && a.session_id === b.session_id && a.mute === b.mute && a.deaf === b.deaf &&
  a.self_mute === b.self_mute && a.self_deaf === b.self_deaf
