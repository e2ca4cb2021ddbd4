import { Effect, Schema } from "effect"
import { unknown } from "../../../src/model/Errors.ts"
import { CarriedId } from "../../../src/model/Ids.ts"
import { MessageResponse } from "../../../src/model/Messages.ts"
import { deleteUnheldAuthorMessages, deleteUnheldMessages } from "../../actors/HeldDeletes.ts"
import { bulkDeleteEvents, StoredMessageRef, withoutMessages } from "../messages/AuthorMessages.ts"
import { existingMessage, messagesOf } from "../messages/MessageAccess.ts"
import { wholeMessageDeleted } from "../messages/MessageEvents.ts"
import { write } from "../Definitions.ts"

/**
 * Operators' message deletes (POST /admin/messages/*). The route's ACL was
 * checked over HTTP, so no member permission applies; windows, rows and
 * events are those of a moderator's delete. Callers leave out messages under
 * a legal hold; the rows' delete keeps them in any case.
 */

/** Audit log action type MESSAGE_DELETE (part C, AuditLogActionType). */
const MESSAGE_DELETE = 72

/** POST /admin/messages/delete of a guild message: as a moderator's delete, audited in the operator's name. */
export const adminDeleteMessage = write(
  "AdminDeleteMessage",
  { channelId: CarriedId.ChannelId, messageId: CarriedId.MessageId, current: Schema.optional(MessageResponse) },
  Schema.Null,
  (state, { channelId, messageId, current }, context) =>
    Effect.gen(function*() {
      if (!state.channels.has(channelId)) return yield* unknown("CHANNEL")
      const message = yield* existingMessage(messagesOf(state, channelId), messageId, current)
      return {
        next: withoutMessages(state, new Map([[channelId, new Set([messageId])]])),
        reply: null,
        persist: deleteUnheldMessages(channelId, [messageId]),
        audit: [{ actionType: MESSAGE_DELETE, targetId: message.author.id, changes: [], options: { channel_id: channelId, count: "1" } }],
        events: [wholeMessageDeleted(context.guildId, message)]
      }
    })
)

/**
 * A batch of an operator's job (shred, delete-all): the author's messages
 * among `messages`, from the windows and Postgres, with one
 * MESSAGE_DELETE_BULK per channel as the production service's job sends.
 * Channels gone from the guild took their messages with them.
 */
export const adminDeleteAuthorMessages = write(
  "AdminDeleteAuthorMessages",
  { authorId: CarriedId.UserId, messages: Schema.Array(StoredMessageRef) },
  Schema.Null,
  (state, { authorId, messages }, context) =>
    Effect.sync(() => {
      const byChannel = new Map<string, Set<string>>()
      for (const ref of messages) {
        if (!state.channels.has(ref.channelId)) continue
        byChannel.set(ref.channelId, (byChannel.get(ref.channelId) ?? new Set<string>()).add(ref.id))
      }
      return {
        next: withoutMessages(state, byChannel),
        reply: null,
        persist: deleteUnheldAuthorMessages(context.guildId, authorId, [...byChannel.values()].flatMap((ids) => [...ids])),
        audit: [],
        events: bulkDeleteEvents(context.guildId, byChannel)
      }
    })
)

export const adminMessageWrites = [adminDeleteMessage, adminDeleteAuthorMessages] as const
