import { Effect, Schema } from "effect"
import { MessageCreateRequest } from "../../../src/model/MessageRequests.ts"
import { deleteAuthorMessages, StoredMessageRef, withoutMessages } from "../messages/AuthorMessages.ts"
import { sendableChannel } from "../messages/MessageAccess.ts"
import { checkShape } from "../messages/MessageDraft.ts"
import { read, write } from "../Definitions.ts"
import { CarriedId } from "../../../src/model/Ids.ts"
import { messageDeleted } from "../messages/MessageEvents.ts"

/**
 * The guild side of the durable message jobs (src/messages/ScheduledMessages*,
 * src/messages/SelfDeletion*): they keep their rows in Postgres and come here
 * for each step, so windows and events stay what a client's own write makes.
 */

/**
 * POST /channels/{id}/messages/schedule: the checks of sending, made when the
 * message is scheduled (the send itself is CreateMessage, when it is due).
 */
export const checkScheduledMessage = read(
  "CheckScheduledMessage",
  { channelId: CarriedId.ChannelId, request: MessageCreateRequest, now: Schema.Number },
  Schema.Null,
  (state, { channelId, request, now }, viewerId) =>
    Effect.gen(function*() {
      yield* sendableChannel(state, viewerId, channelId, now)
      yield* checkShape(request, request.message_reference?.type === 1)
      return null
    })
)

/**
 * A batch of the self-service deletion: the actor's own messages among
 * `messages` go, from the windows and Postgres, each with its MESSAGE_DELETE
 * (what deleting them one by one would send). No permission is needed to
 * delete one's own messages, nor membership: a member who left keeps them.
 */
export const deleteOwnMessages = write(
  "DeleteOwnMessages",
  { messages: Schema.Array(StoredMessageRef) },
  Schema.Null,
  (state, { messages }, context) =>
    Effect.sync(() => {
      const byChannel = new Map<string, Set<string>>()
      const gone: Array<StoredMessageRef> = []
      for (const ref of messages) {
        if (!state.channels.has(ref.channelId)) continue
        const ids = byChannel.get(ref.channelId) ?? new Set<string>()
        if (ids.has(ref.id)) continue
        byChannel.set(ref.channelId, ids.add(ref.id))
        gone.push(ref)
      }
      return {
        next: withoutMessages(state, byChannel),
        reply: null,
        persist: deleteAuthorMessages(context.guildId, context.actorId, messages.map((m) => m.id)),
        audit: [],
        events: gone.map((ref) =>
          messageDeleted(context.guildId, { id: ref.id, channel_id: ref.channelId, author_id: context.actorId, content: ref.content })
        )
      }
    })
)

export const messageJobWrites = [deleteOwnMessages] as const
export const messageJobReads = [checkScheduledMessage] as const
