import { Effect, Schema } from "effect"
import { type BadRequest, invalidField, missingPermissions } from "../../../src/model/Errors.ts"
import { MessageResponse } from "../../../src/model/Messages.ts"
import { visibleChannel } from "../channels/ChannelAccess.ts"
import { channelPermissions } from "../channels/ChannelPermissions.ts"
import { existingMessage, isEmpty, messagesOf } from "../messages/MessageAccess.ts"
import { deleteMessages, entryOf, updateMessage } from "../messages/MessageRows.ts"
import { write } from "../Definitions.ts"
import { has, Permission } from "../../../src/model/Permissions.ts"
import { CarriedId } from "../../../src/model/Ids.ts"
import { messageEvent, wholeMessageDeleted } from "../messages/MessageEvents.ts"

/**
 * The message without one of its attachments, and whether that leaves it with
 * nothing (it is then deleted rather than kept empty). Guild and DM channels alike.
 */
export const withoutAttachment = (
  before: MessageResponse,
  attachmentId: string
): Effect.Effect<{ readonly after: MessageResponse; readonly gone: boolean }, BadRequest> => {
  if (!before.attachments.some((a) => a.id === attachmentId)) {
    return Effect.fail(invalidField("attachment_id", "ATTACHMENT_ID_NOT_FOUND_IN_MESSAGE", "Not an attachment of the message"))
  }
  const after: MessageResponse = { ...before, attachments: before.attachments.filter((a) => a.id !== attachmentId) }
  return Effect.succeed({ after, gone: isEmpty(after) })
}

/**
 * DELETE /channels/{id}/messages/{message_id}/attachments/{attachment_id}:
 * the author, or MANAGE_MESSAGES. A message left with nothing is deleted.
 * The stored file stays: media is content-addressed and may be shared.
 */
export const deleteAttachment = write(
  "DeleteMessageAttachment",
  { channelId: CarriedId.ChannelId, messageId: CarriedId.MessageId, attachmentId: CarriedId.AttachmentId, current: Schema.optional(MessageResponse) },
  Schema.Null,
  (state, { channelId, messageId, attachmentId, current }, context) =>
    Effect.gen(function*() {
      const channel = yield* visibleChannel(state, context.actorId, channelId)
      const messages = messagesOf(state, channelId)
      const before = yield* existingMessage(messages, messageId, current)
      const own = before.author.id === context.actorId
      if (!own && !has(channelPermissions(state, context.actorId, channel, context.now), Permission.MANAGE_MESSAGES)) {
        return yield* missingPermissions()
      }
      const { after, gone } = yield* withoutAttachment(before, attachmentId)
      const inWindow = messages.window.find(BigInt(messageId)) !== undefined
      const window = !inWindow
        ? messages.window
        : gone
        ? messages.window.without(new Set([BigInt(messageId)]))
        : messages.window.replaced(entryOf(after))
      return {
        next: window === messages.window ? state : { ...state, channelMessages: state.channelMessages.with(channelId, { ...messages, window }) },
        reply: null,
        persist: gone ? deleteMessages(channelId, [messageId]) : updateMessage(after),
        audit: [],
        events: [
          gone
            ? wholeMessageDeleted(context.guildId, before)
            : messageEvent("MESSAGE_UPDATE", state, context.guildId, after)
        ]
      }
    })
)
