import { Effect, Schema } from "effect"
import { BadRequest, missingPermissions } from "../../../src/model/Errors.ts"
import { MessageResponse } from "../../../src/model/Messages.ts"
import { channelPermissions } from "../channels/ChannelPermissions.ts"
import { existingMessage, messagesOf, readableChannel } from "../messages/MessageAccess.ts"
import { entryOf } from "../messages/MessageRows.ts"
import { type ChannelMessages, knownAbsent } from "../messages/MessageWindow.ts"
import { read, unchanged, write } from "../Definitions.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import { setPinned } from "../messages/ReactionRows.ts"
import { CarriedId } from "../../../src/model/Ids.ts"
import { messageEvent } from "../messages/MessageEvents.ts"

/** Pinned messages a channel holds at most. */
export const MAX_PINS = 250

/** Audit log action types (part C, AuditLogActionType). */
const MESSAGE_PIN = 74
const MESSAGE_UNPIN = 75

const PINNERS = Permission.PIN_MESSAGES | Permission.MANAGE_MESSAGES

/** The channel's pins, without those of messages the window knows were deleted since. */
const livePins = (messages: ChannelMessages): ReadonlyMap<string, string> => {
  const pins = messages.pins ?? new Map<string, string>()
  const gone = [...pins.keys()].filter((id) => knownAbsent(messages, BigInt(id)))
  return gone.length === 0 ? pins : new Map([...pins].filter(([id]) => !gone.includes(id)))
}

/** The newest pin's time, as CHANNEL_PINS_UPDATE carries it. */
const lastPinTimestamp = (pins: ReadonlyMap<string, string>): string | null =>
  [...pins.values()].reduce<string | null>((newest, at) => (newest === null || at > newest ? at : newest), null)

const pinFields = { channelId: CarriedId.ChannelId, messageId: CarriedId.MessageId, current: Schema.optional(MessageResponse) }

/**
 * PUT and DELETE /channels/{id}/pins/{message_id}: PIN_MESSAGES or
 * MANAGE_MESSAGES, at most MAX_PINS pins a channel, audited. Pinning a pinned
 * message (or unpinning one that is not) changes nothing.
 */
const pinWrite = <const Tag extends string>(tag: Tag, pinning: boolean) =>
  write(tag, pinFields, Schema.Null, (state, { channelId, messageId, current }, context) =>
    Effect.gen(function*() {
      const channel = yield* readableChannel(state, context.actorId, channelId)
      if ((channelPermissions(state, context.actorId, channel, context.now) & PINNERS) === 0n) return yield* missingPermissions()
      const messages = messagesOf(state, channelId)
      const found = yield* existingMessage(messages, messageId, current)
      const pins = livePins(messages)
      if (pins.has(messageId) === pinning) return unchanged(state, null)
      if (pinning && pins.size >= MAX_PINS) {
        return yield* new BadRequest({ code: "MAX_PINS_PER_CHANNEL", message: `Maximum number of pins reached (${MAX_PINS})` })
      }
      const pinnedAt = new Date(context.now).toISOString()
      const nextPins = new Map(pins)
      if (pinning) nextPins.set(messageId, pinnedAt)
      else nextPins.delete(messageId)
      // Reactions of an older message came with the caller's copy, `me` theirs: events carry none.
      const { reactions: _, ...message } = found
      const after: MessageResponse = { ...message, pinned: pinning }
      const inWindow = messages.window.find(BigInt(messageId)) !== undefined
      const window = inWindow ? messages.window.replaced(entryOf(after)) : messages.window
      return {
        next: { ...state, channelMessages: state.channelMessages.with(channelId, { ...messages, window, pins: nextPins }) },
        reply: null,
        persist: setPinned(channelId, messageId, pinning ? pinnedAt : null),
        audit: [{
          actionType: pinning ? MESSAGE_PIN : MESSAGE_UNPIN,
          targetId: after.author.id,
          changes: [],
          options: { channel_id: channelId, message_id: messageId }
        }],
        events: [
          messageEvent("MESSAGE_UPDATE", state, context.guildId, after),
          {
            type: "CHANNEL_PINS_UPDATE",
            data: { guild_id: context.guildId, channel_id: channelId, last_pin_timestamp: lastPinTimestamp(nextPins) }
          }
        ]
      }
    }))

export const pinMessage = pinWrite("PinMessage", true)
export const unpinMessage = pinWrite("UnpinMessage", false)

/** Whether the viewer may read the channel's pins (GET .../messages/pins, served from Postgres): READ_MESSAGE_HISTORY. */
export const viewPins = read("ViewPins", { channelId: CarriedId.ChannelId }, Schema.Null, (state, { channelId }, viewerId) =>
  Effect.as(readableChannel(state, viewerId, channelId), null))

export const pinWrites = [pinMessage, unpinMessage] as const
export const pinReads = [viewPins] as const
