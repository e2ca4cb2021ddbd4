import { Effect, Schema } from "effect"
import { visibleChannel } from "../channels/ChannelAccess.ts"
import { messagesOf, readableChannel, unknownMessage } from "../messages/MessageAccess.ts"
import { knownAbsent } from "../messages/MessageWindow.ts"
import { read } from "../Definitions.ts"
import { JsonText } from "../../actors/Definitions.ts"
import { messageJsonFor, pageJsonFor } from "../messages/WindowReactions.ts"
import { CarriedId } from "../../../src/model/Ids.ts"

/**
 * Reads of a guild's messages, from the window of each channel's newest
 * messages in the guild state. What the window cannot answer, they answer
 * null for: the caller, permission granted, reads Postgres.
 */
const PageFields = {
  channelId: CarriedId.ChannelId,
  limit: Schema.Int,
  before: Schema.optional(Schema.String),
  after: Schema.optional(Schema.String),
  around: Schema.optional(Schema.String)
}

/** GET /channels/{id}/messages: the page as JSON from the window, or null when only Postgres has it. */
export const listMessages = read("ListMessages", PageFields, JsonText, (state, query, viewerId) =>
  Effect.map(readableChannel(state, viewerId, query.channelId), () => pageJsonFor(messagesOf(state, query.channelId), query, viewerId) ?? null))

/** GET /channels/{id}/messages/{message_id}: its JSON from the window, or null when only Postgres may have it. */
export const getMessage = read(
  "GetMessage",
  { channelId: CarriedId.ChannelId, messageId: CarriedId.MessageId },
  JsonText,
  (state, { channelId, messageId }, viewerId) =>
    Effect.flatMap(readableChannel(state, viewerId, channelId), () => {
      const messages = messagesOf(state, channelId)
      const id = BigInt(messageId)
      const entry = messages.window.find(id)
      if (entry !== undefined) return Effect.succeed(messageJsonFor(messages, entry, viewerId))
      return knownAbsent(messages, id) ? Effect.fail(unknownMessage()) : Effect.succeed(null)
    })
)

/** Whether the viewer sees the channel (acks): VIEW_CHANNEL. */
export const viewMessageChannel = read("ViewMessageChannel", { channelId: CarriedId.ChannelId }, Schema.Null, (state, { channelId }, viewerId) =>
  Effect.as(visibleChannel(state, viewerId, channelId), null))

export const messageReads = [listMessages, getMessage, viewMessageChannel] as const
