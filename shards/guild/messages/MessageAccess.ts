import { Effect, Schema } from "effect"
import type { GuildChannel } from "../channels/GuildChannel.ts"
import { BadRequest, Forbidden, missingPermissions, NotFound, unknown } from "../../../src/model/Errors.ts"
import { MessageResponse } from "../../../src/model/Messages.ts"
import { visibleChannel } from "../channels/ChannelAccess.ts"
import { channelPermissions } from "../channels/ChannelPermissions.ts"
import { type ChannelMessages, knownAbsent, NO_MESSAGES, type WindowEntry } from "./MessageWindow.ts"
import { has, Permission } from "../../../src/model/Permissions.ts"
import { guildPermissions, type GuildState } from "../State.ts"
import { isTimedOut } from "../members/Timeouts.ts"
import { ChannelType } from "../../../src/model/Channels.ts"

/** GuildOperations (part C): what a guild has switched off, bit by bit. */
export const DisabledOperation = { EVERYONE_MENTIONS: 2, TYPING_EVENTS: 4, SEND_MESSAGE: 16 } as const

/** Who may ignore a channel's slowmode. */
const SLOWMODE_EXEMPT = Permission.MANAGE_MESSAGES | Permission.MANAGE_CHANNELS | Permission.BYPASS_SLOWMODE

export const unknownMessage = () => unknown("MESSAGE")

export const messagesOf = (state: GuildState, channelId: string): ChannelMessages =>
  state.channelMessages.get(channelId) ?? NO_MESSAGES

/** Whether a timeout keeps `userId` from talking at `now` (owner and administrators are never silenced). */
export const silenced = (state: GuildState, userId: string, now: number): boolean =>
  isTimedOut(state, userId, now) && !has(guildPermissions(state, userId), Permission.ADMINISTRATOR)

export const communicationDisabled = () =>
  new Forbidden({ code: "COMMUNICATION_DISABLED", message: "You are timed out in this guild" })

/** A channel whose messages `userId` may read: VIEW_CHANNEL and READ_MESSAGE_HISTORY (a timeout leaves both). */
export const readableChannel = (
  state: GuildState,
  userId: string,
  channelId: string
): Effect.Effect<GuildChannel, Forbidden | NotFound> =>
  Effect.flatMap(visibleChannel(state, userId, channelId), (channel) =>
    has(channelPermissions(state, userId, channel), Permission.READ_MESSAGE_HISTORY)
      ? Effect.succeed(channel)
      : Effect.fail(missingPermissions()))

/**
 * A text channel `userId` may send in at `now`, with their permissions in it:
 * SEND_MESSAGES, no timeout running (owner and administrators excepted), and
 * sending not switched off for the guild (MANAGE_GUILD excepted).
 */
export const sendableChannel = (
  state: GuildState,
  userId: string,
  channelId: string,
  now: number
): Effect.Effect<{ readonly channel: GuildChannel; readonly permissions: bigint }, BadRequest | Forbidden | NotFound> =>
  Effect.gen(function*() {
    const channel = yield* visibleChannel(state, userId, channelId)
    if (channel.type !== ChannelType.TEXT) {
      return yield* new BadRequest({
        code: "CANNOT_SEND_MESSAGES_IN_NON_TEXT_CHANNEL",
        message: "Cannot send messages in a non-text channel"
      })
    }
    const permissions = channelPermissions(state, userId, channel)
    if (silenced(state, userId, now)) return yield* communicationDisabled()
    if (!has(permissions, Permission.SEND_MESSAGES)) return yield* missingPermissions()
    if ((state.guild.disabled_operations & DisabledOperation.SEND_MESSAGE) !== 0 && !has(permissions, Permission.MANAGE_GUILD)) {
      return yield* new Forbidden({ code: "FEATURE_TEMPORARILY_DISABLED", message: "Sending messages is disabled in this guild" })
    }
    return { channel, permissions }
  })

/** Milliseconds until `userId` may send again under the channel's slowmode (0: now). */
export const slowmodeWait = (
  channel: GuildChannel,
  messages: ChannelMessages,
  userId: string,
  permissions: bigint,
  now: number
): number => {
  const seconds = channel.rate_limit_per_user ?? 0
  const last = messages.lastSent.get(userId)
  if (seconds === 0 || (permissions & SLOWMODE_EXEMPT) !== 0n || last === undefined) return 0
  return Math.max(0, last + seconds * 1000 - now)
}

const decodeMessage = Schema.decodeUnknownSync(MessageResponse)

/** The message of a window entry. */
export const messageOf = (entry: WindowEntry): MessageResponse => decodeMessage(JSON.parse(entry.json))

/**
 * The message `messageId` of the channel as it now is: the window's copy,
 * else the copy the caller read from Postgres (for one older than the
 * window). UNKNOWN_MESSAGE when the window knows it is gone, or nobody has it.
 */
export const existingMessage = (
  messages: ChannelMessages,
  messageId: string,
  fromCaller: MessageResponse | undefined
): Effect.Effect<MessageResponse, NotFound> => {
  const id = BigInt(messageId)
  const entry = messages.window.find(id)
  if (entry !== undefined) return Effect.succeed(messageOf(entry))
  if (knownAbsent(messages, id) || fromCaller?.id !== messageId) return Effect.fail(unknownMessage())
  return Effect.succeed(fromCaller)
}

/** Whether a message says nothing at all: no text, embed, attachment, sticker or forwarded message. */
export const isEmpty = (m: MessageResponse): boolean =>
  m.content.trim() === "" && m.embeds.length === 0 && m.attachments.length === 0 && (m.stickers ?? []).length === 0 &&
  m.message_snapshots === undefined
