import { Schema } from "effect"
import { ChannelResponse } from "../../src/model/Guilds.ts"
import { channelPermissions } from "./channels/ChannelPermissions.ts"
import type { GuildChannel } from "./channels/GuildChannel.ts"
import type { GuildEvent } from "./Definitions.ts"
import { has, Permission } from "../../src/model/Permissions.ts"
import { guildPermissions, type GuildState } from "./State.ts"

/**
 * Which members of a guild may receive one of its events: all of them, only
 * the listed ones, or all but the listed ones (whichever list is shorter).
 * Decided where the guild's state lives, so that a gateway in another process
 * needs no state to filter.
 */
export type Audience =
  | { readonly kind: "members" }
  | { readonly kind: "only"; readonly users: ReadonlyArray<string> }
  | { readonly kind: "except"; readonly users: ReadonlyArray<string> }

const MEMBERS: Audience = { kind: "members" }
const NOBODY: Audience = { kind: "only", users: [] }

/** Events about a channel itself: their data is the channel. */
const CHANNEL_EVENTS = new Set(["CHANNEL_CREATE", "CHANNEL_UPDATE", "CHANNEL_DELETE"])

/** Events inside a channel: their data names it (`channel_id`); who cannot see the channel does not hear of them. */
const IN_CHANNEL_EVENTS = new Set([
  "MESSAGE_CREATE",
  "MESSAGE_UPDATE",
  "MESSAGE_DELETE",
  "MESSAGE_DELETE_BULK",
  "MESSAGE_REACTION_ADD",
  "MESSAGE_REACTION_REMOVE",
  "MESSAGE_REACTION_REMOVE_ALL",
  "MESSAGE_REACTION_REMOVE_EMOJI",
  "CHANNEL_PINS_UPDATE",
  "TYPING_START",
  "WEBHOOKS_UPDATE"
])

/** Invites go to those who manage the channel; bans to those who may ban. */
const INVITE_EVENTS = new Set(["INVITE_CREATE", "INVITE_DELETE"])
const BAN_EVENTS = new Set(["GUILD_BAN_ADD", "GUILD_BAN_REMOVE"])

const isChannel = Schema.is(ChannelResponse)
const isInChannel = Schema.is(Schema.Struct({ channel_id: Schema.String }))
const isForUser = Schema.is(Schema.Struct({ user_id: Schema.String }))
const isAboutUser = Schema.is(Schema.Struct({ user: Schema.Struct({ id: Schema.String }) }))

/** The members for whom `allowed` holds, as the shorter of the two lists. */
const membersWhere = (state: GuildState, allowed: (userId: string) => boolean): Audience => {
  const yes: Array<string> = []
  const no: Array<string> = []
  for (const [userId] of state.members) (allowed(userId) ? yes : no).push(userId)
  if (no.length === 0) return MEMBERS
  return yes.length <= no.length ? { kind: "only", users: yes } : { kind: "except", users: no }
}

/** What decides who may see a channel: the channel's state, or the channel an event shows. */
type ChannelOverwrites = Pick<GuildChannel, "permission_overwrites">

/** The overwrites of the channel a channel event shows (ChannelResponse). */
const shownOverwrites = (data: unknown): ChannelOverwrites | undefined =>
  isChannel(data) ? { permission_overwrites: data.permission_overwrites ?? [] } : undefined

/** Every member sees the channel unless @everyone lacks VIEW_CHANNEL or an overwrite takes it away. */
const openToAll = (state: GuildState, channel: ChannelOverwrites): boolean =>
  has(BigInt(state.roles.get(state.guild.id)?.permissions ?? "0"), Permission.VIEW_CHANNEL) &&
  channel.permission_overwrites.every((o) => (BigInt(o.deny) & Permission.VIEW_CHANNEL) === 0n)

const inChannel = (state: GuildState, channel: ChannelOverwrites | undefined, wanted: bigint): Audience => {
  if (channel === undefined) return NOBODY
  if (wanted === Permission.VIEW_CHANNEL && openToAll(state, channel)) return MEMBERS
  return membersWhere(state, (userId) => has(channelPermissions(state, userId, channel), wanted))
}

/** Who may receive `event` of the guild whose state is `state` (undefined: the guild is not loaded here). */
export const audienceOf = (state: GuildState | undefined, event: GuildEvent): Audience => {
  const { type, data } = event
  // A user's own bookkeeping (read states) goes to that user's sessions alone.
  if (type === "MESSAGE_ACK") return isForUser(data) ? { kind: "only", users: [data.user_id] } : NOBODY
  const scoped = CHANNEL_EVENTS.has(type) || IN_CHANNEL_EVENTS.has(type) || INVITE_EVENTS.has(type) ||
    BAN_EVENTS.has(type)
  if (!scoped) return MEMBERS
  if (state === undefined) return NOBODY
  if (CHANNEL_EVENTS.has(type)) return inChannel(state, shownOverwrites(data), Permission.VIEW_CHANNEL)
  if (BAN_EVENTS.has(type)) return membersWhere(state, (userId) => has(guildPermissions(state, userId), Permission.BAN_MEMBERS))
  const channel = isInChannel(data) ? state.channels.get(data.channel_id) : undefined
  const wanted = INVITE_EVENTS.has(type) ? Permission.VIEW_CHANNEL | Permission.MANAGE_CHANNELS : Permission.VIEW_CHANNEL
  return inChannel(state, channel, wanted)
}

/** Whether a user is in the audience; built once per event, asked once per session. */
export const admission = (audience: Audience): (userId: string) => boolean => {
  if (audience.kind === "members") return () => true
  const listed = new Set(audience.users)
  const only = audience.kind === "only"
  return (userId) => listed.has(userId) === only
}

/**
 * The data of an event as every member of its audience may read it.
 * GUILD_UPDATE carries the guild as its owner sees it: the owner's permissions
 * and every channel. Members get it without those; they learn of channels
 * from the CHANNEL_* events, each sent to those who may see the channel.
 */
export const dataForAudience = (event: GuildEvent): unknown => {
  const { type, data } = event
  if (type !== "GUILD_UPDATE" || typeof data !== "object" || data === null) return data
  return Object.fromEntries(Object.entries(data).filter(([key]) => key !== "channels" && key !== "permissions"))
}

/** The member an event adds to the guild or removes from it. */
export const membershipOf = (event: GuildEvent): { readonly userId: string; readonly joined: boolean } | undefined => {
  if (event.type !== "GUILD_MEMBER_ADD" && event.type !== "GUILD_MEMBER_REMOVE") return undefined
  return isAboutUser(event.data) ? { userId: event.data.user.id, joined: event.type === "GUILD_MEMBER_ADD" } : undefined
}
