import { Effect, Schema } from "effect"
import { BadRequest, missingAccess, missingPermissions, unknown } from "../../../src/model/Errors.ts"
import { MessageCreateRequest, MessageUpdateRequest } from "../../../src/model/MessageRequests.ts"
import {
  MessageAttachmentResponse,
  MessageResponse,
  MessageStickerResponse,
  ReferencedMessage
} from "../../../src/model/Messages.ts"
import { deleteMessages, insertMessage, updateMessage } from "../../guild/messages/MessageRows.ts"
import { storeAck } from "../../guild/operations/MessageAcks.ts"
import { withoutAttachment } from "../../guild/operations/MessageAttachments.ts"
import { MAX_PINS } from "../../guild/operations/Pins.ts"
import { asRecipient, everyone, mayMessage, tell, tellEach, withOpen } from "../Access.ts"
import { type Decision, read, unchanged, write } from "../Definitions.ts"
import { draftMessage, editedMessage, NONCE_TTL_MS } from "../Messages.ts"
import * as Rows from "../Rows.ts"
import type { DmState } from "../State.ts"

/** Messages remembered for nonce deduplication. */
const RECENT = 50

/** `blocked`: a block stands between the actor and the other recipient of a one-to-one DM (read by the caller). */
const Blocked = { blocked: Schema.Boolean }

/** The message a write is about, as Postgres holds it (read by the caller); absent when there is none. */
const Stored = { messageId: Schema.String, stored: Schema.optional(MessageResponse) }

const existing = (stored: MessageResponse | undefined) => (stored === undefined ? Effect.fail(unknown("MESSAGE")) : Effect.succeed(stored))

/**
 * A new message; the operation id becomes its id unless the channel's last id is above it.
 * The caller hands in what the actor does not keep: a block, the message a reply answers
 * (`replied`, of this channel), the stickers the author has, the files of a multipart create,
 * and the message a forward copies, read as the author may read it, with its guild (null: a DM).
 */
export const sendMessage = write(
  "Send",
  {
    ...Blocked,
    request: MessageCreateRequest,
    replied: Schema.optional(MessageResponse),
    stickers: Schema.Struct({ usable: Schema.Array(MessageStickerResponse), guild: Schema.Array(Schema.String) }),
    uploads: Schema.optional(Schema.Array(MessageAttachmentResponse)),
    forwarded: Schema.optional(Schema.Struct({ message: ReferencedMessage, guildId: Schema.NullOr(Schema.String) }))
  },
  MessageResponse,
  (s, command, { actorId, operationId, now }) =>
    Effect.gen(function*() {
      const { request } = command
      yield* asRecipient(s, actorId)
      yield* mayMessage(command.blocked)
      const nonce = request.nonce === undefined ? undefined : String(request.nonce)
      const twin = nonce === undefined
        ? undefined
        : s.recent.find((m) => m.authorId === actorId && m.nonce === nonce && now - m.sentAt <= NONCE_TTL_MS)
      if (twin !== undefined) return unchanged(s, twin.message)
      const proposed = BigInt(operationId)
      const last = BigInt(s.lastMessageId ?? "0")
      const id = (proposed > last ? proposed : last + 1n).toString()
      const author = s.recipients.get(actorId)?.user
      if (author === undefined) return yield* missingAccess()
      const stickers = {
        usable: new Map(command.stickers.usable.map((sticker) => [sticker.id, sticker])),
        guild: new Set(command.stickers.guild)
      }
      const parts = { replied: command.replied, forwarded: command.forwarded, uploads: command.uploads ?? [], stickers }
      const message = yield* draftMessage(s, author, id, request, parts, now)
      const reopened = everyone(s).filter((userId) => s.recipients.get(userId)?.open === false)
      const recent = nonce === undefined ? s.recent : [...s.recent, { authorId: actorId, nonce, sentAt: now, message }].slice(-RECENT)
      const next: DmState = { ...withOpen(s, reopened, true), lastMessageId: id, recent }
      return {
        next,
        reply: message,
        persist: Effect.andThen(insertMessage(null, message), Rows.sent(s.id, id, reopened)),
        events: [...tellEach(next, reopened, "CHANNEL_CREATE"), tell(everyone(next), "MESSAGE_CREATE", Schema.encodeSync(MessageResponse)(message))]
      }
    })
)

/** Whether the actor may send here now (a recipient, no block): asked before a multipart create's files are read. */
export const checkSend = read("CheckSend", Blocked, Schema.Null, (s, { blocked }, viewerId) =>
  Effect.andThen(asRecipient(s, viewerId), Effect.as(mayMessage(blocked), null)))

export const editMessage = write(
  "Edit",
  { ...Stored, patch: MessageUpdateRequest },
  MessageResponse,
  (s, { stored, patch }, { actorId, now }) =>
    Effect.gen(function*() {
      yield* asRecipient(s, actorId)
      const before = yield* existing(stored)
      const after = yield* editedMessage(s, actorId, before, patch, now)
      return {
        next: s,
        reply: after,
        persist: updateMessage(after),
        events: [tell(everyone(s), "MESSAGE_UPDATE", Schema.encodeSync(MessageResponse)(after))]
      }
    })
)

export const deleteMessage = write("Delete", Stored, Schema.Null, (s, { stored }, { actorId }) =>
  Effect.gen(function*() {
    yield* asRecipient(s, actorId)
    const message = yield* existing(stored)
    // Nobody moderates a DM: each deletes only their own messages.
    if (message.author.id !== actorId) return yield* missingPermissions()
    return {
      next: s,
      reply: null,
      persist: deleteMessages(s.id, [message.id]),
      events: [tell(everyone(s), "MESSAGE_DELETE", { id: message.id, channel_id: s.id, content: message.content, author_id: actorId })]
    }
  }))

/** DELETE /channels/{id}/messages/{id}/attachments/{id}: the author's own message only. */
export const deleteAttachment = write(
  "DeleteAttachment",
  { ...Stored, attachmentId: Schema.String },
  Schema.Null,
  (s, { stored, attachmentId }, { actorId }) =>
    Effect.gen(function*() {
      yield* asRecipient(s, actorId)
      const before = yield* existing(stored)
      if (before.author.id !== actorId) return yield* missingPermissions()
      const { after, gone } = yield* withoutAttachment(before, attachmentId)
      if (gone) {
        return {
          next: s,
          reply: null,
          persist: deleteMessages(s.id, [after.id]),
          events: [tell(everyone(s), "MESSAGE_DELETE", { id: after.id, channel_id: s.id, content: before.content, author_id: actorId })]
        }
      }
      return {
        next: s,
        reply: null,
        persist: updateMessage(after),
        events: [tell(everyone(s), "MESSAGE_UPDATE", Schema.encodeSync(MessageResponse)(after))]
      }
    })
)

/** POST /channels/{id}/typing: TYPING_START to the recipients. */
export const startTyping = write("Typing", Blocked, Schema.Null, (s, { blocked }, { actorId, now }) =>
  Effect.gen(function*() {
    yield* asRecipient(s, actorId)
    yield* mayMessage(blocked)
    return {
      ...unchanged(s, null),
      events: [tell(everyone(s), "TYPING_START", { channel_id: s.id, user_id: actorId, timestamp: Math.floor(now / 1000) })]
    }
  }))

/**
 * PUT (pinned) and DELETE /channels/{id}/pins/{message_id}. Nobody moderates a DM: any
 * recipient pins and unpins. The caller reads the channel's pins: how many, and the two
 * newest (the newest after an unpin is one of them).
 */
export const pinMessage = write(
  "Pin",
  {
    ...Stored,
    pinned: Schema.Boolean,
    pins: Schema.Struct({
      count: Schema.Int,
      newest: Schema.Array(Schema.Struct({ messageId: Schema.String, pinnedAt: Schema.String }))
    })
  },
  Schema.Null,
  (s, { stored, pinned, pins }, { actorId, now }) =>
    Effect.gen(function*() {
      yield* asRecipient(s, actorId)
      const message = yield* existing(stored)
      if (message.pinned === pinned) return unchanged(s, null)
      if (pinned && pins.count >= MAX_PINS) {
        return yield* new BadRequest({ code: "MAX_PINS_PER_CHANNEL", message: `Maximum number of pins reached (${MAX_PINS})` })
      }
      const pinnedAt = pinned ? new Date(now).toISOString() : null
      const others = pins.newest.filter((p) => p.messageId !== message.id).map((p) => p.pinnedAt)
      const newest = [...others, ...(pinnedAt === null ? [] : [pinnedAt])].reduce<string | null>(
        (a, b) => (a === null || Date.parse(b) > Date.parse(a) ? b : a),
        null
      )
      const { reactions: _, ...rest } = message
      return {
        next: s,
        reply: null,
        persist: Rows.setPinnedWithin(s.id, message.id, pinnedAt, MAX_PINS),
        events: [
          tell(everyone(s), "MESSAGE_UPDATE", { ...rest, pinned }),
          tell(everyone(s), "CHANNEL_PINS_UPDATE", { channel_id: s.id, last_pin_timestamp: newest })
        ]
      }
    })
)

/** POST /channels/{id}/messages/{id}/ack: the actor's read state of the channel. */
export const ackMessage = write(
  "Ack",
  { messageId: Schema.String, mentionCount: Schema.optional(Schema.Int), manual: Schema.optional(Schema.Boolean) },
  Schema.Null,
  (s, { messageId, mentionCount, manual }, { actorId }) =>
    Effect.map(asRecipient(s, actorId), (): Decision<null> => ({
      next: s,
      reply: null,
      persist: storeAck(actorId, { channelId: s.id, messageId, mentionCount, manual }),
      // A read state is the reader's own: only their sessions hear of it.
      events: [tell([actorId], "MESSAGE_ACK", {
        channel_id: s.id,
        message_id: messageId,
        user_id: actorId,
        ...(manual === undefined ? {} : { manual }),
        ...(mentionCount === undefined ? {} : { mention_count: mentionCount })
      })]
    }))
)

export const messageWrites = [sendMessage, editMessage, deleteMessage, deleteAttachment, startTyping, pinMessage, ackMessage] as const
export const messageReads = [checkSend] as const
