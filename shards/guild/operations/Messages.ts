import { Effect, Schema } from "effect"
import { invalidField, missingAccess, missingPermissions } from "../../../src/model/Errors.ts"
import { MessageCreateRequest, type MessageReferenceRequest } from "../../../src/model/MessageRequests.ts"
import {
  MessageAttachmentResponse,
  MessageReferenceType,
  MessageResponse,
  MessageType,
  ReferencedMessage,
  withoutReferenced
} from "../../../src/model/Messages.ts"
import {
  DisabledOperation,
  existingMessage,
  messageOf,
  messagesOf,
  sendableChannel,
  slowmodeWait,
  unknownMessage
} from "../messages/MessageAccess.ts"
import { checkShape, embedsFor, mentionsIn, pingableAuthor, sendableFlags, snapshotOf, stickersFor } from "../messages/MessageDraft.ts"
import { entryOf, messageRow } from "../messages/MessageRows.ts"
import { appended, type ChannelMessages } from "../messages/MessageWindow.ts"
import { unchanged, write } from "../Definitions.ts"
import { has, Permission } from "../../../src/model/Permissions.ts"
import type { GuildState } from "../State.ts"
import { memberView } from "../members/GuildMember.ts"
import { CarriedId } from "../../../src/model/Ids.ts"
import { messageEvent } from "../messages/MessageEvents.ts"

/** A resend with the same nonce within this long answers the message it made. */
const NONCE_TTL_MS = 5 * 60_000

/** The create was refused by the channel's slowmode: retry after this long. */
export const SlowmodeRefusal = Schema.Struct({ retry_after_ms: Schema.Number })
export const CreateMessageReply = Schema.Union([MessageResponse, SlowmodeRefusal])

/**
 * A new message's id: the write's operation id (a snowflake of its sending
 * process), raised above the channel's last id when that process's clock is
 * behind. So ids grow in the order the actor commits, whoever sent them.
 */
export const nextMessageId = (messages: ChannelMessages, operationId: string): bigint => {
  const proposed = BigInt(operationId)
  return proposed > messages.lastId ? proposed : messages.lastId + 1n
}

/** The message `authorId` sent with `nonce` lately, newest first, still in the window. */
const sentWithNonce = (messages: ChannelMessages, authorId: string, nonce: string, now: number) => {
  for (let i = messages.window.size - 1; i >= 0; i--) {
    const entry = messages.window.at(i)
    if (entry === undefined || now - entry.sentAt > NONCE_TTL_MS) return undefined
    if (entry.authorId === authorId && entry.nonce === nonce) return entry
  }
  return undefined
}

/**
 * The message a reference names. A reply answers a message of its own
 * channel; a forward copies one the caller read (in this guild or another:
 * the HTTP side checked the caller may read it).
 */
const referencedTarget = (
  state: GuildState,
  channelId: string,
  guildId: string,
  reference: MessageReferenceRequest,
  fromCaller: ReferencedMessage | undefined
) =>
  Effect.gen(function*() {
    const sourceChannel = reference.channel_id ?? channelId
    if (reference.type === MessageReferenceType.FORWARD) {
      if (state.channels.has(sourceChannel)) return yield* existingMessage(messagesOf(state, sourceChannel), reference.message_id, fromCaller)
      return fromCaller?.id === reference.message_id && fromCaller.channel_id === sourceChannel
        ? fromCaller
        : yield* unknownMessage()
    }
    if (sourceChannel !== channelId) {
      return yield* invalidField("message_reference.channel_id", "INVALID_CHANNEL", "A reply answers a message of its own channel")
    }
    if (reference.guild_id !== undefined && reference.guild_id !== guildId) {
      return yield* invalidField("message_reference.guild_id", "GUILD_ID_MUST_MATCH_REFERENCED_MESSAGE", "Not the message's guild")
    }
    const target = yield* existingMessage(messagesOf(state, channelId), reference.message_id, fromCaller)
    if (target.type !== MessageType.DEFAULT && target.type !== MessageType.REPLY) {
      return yield* invalidField("message_reference", "CANNOT_REPLY_TO_SYSTEM_MESSAGE", "Cannot reply to a system message")
    }
    return target
  })

/**
 * POST /channels/{id}/messages: SEND_MESSAGES in a text channel, no timeout,
 * the slowmode respected. `referenced` is the referenced message when the
 * caller read it from Postgres (older than the window, or another guild's).
 */
export const createMessage = write(
  "CreateMessage",
  {
    channelId: CarriedId.ChannelId,
    request: MessageCreateRequest,
    referenced: Schema.optional(ReferencedMessage),
    /** Files of a multipart create, already stored (src/messages/Uploads.ts). */
    uploads: Schema.optional(Schema.Array(MessageAttachmentResponse))
  },
  CreateMessageReply,
  (state, { channelId, request, referenced, uploads = [] }, context) =>
    Effect.gen(function*() {
      const { channel, permissions } = yield* sendableChannel(state, context.actorId, channelId, context.now)
      const messages = messagesOf(state, channelId)
      const nonce = request.nonce === undefined ? null : String(request.nonce)
      const twin = nonce === null ? undefined : sentWithNonce(messages, context.actorId, nonce, context.now)
      if (twin !== undefined) return unchanged(state, messageOf(twin))
      const wait = slowmodeWait(channel, messages, context.actorId, permissions, context.now)
      if (wait > 0) return unchanged(state, { retry_after_ms: wait })
      const reference = request.message_reference ?? undefined
      const forward = reference?.type === MessageReferenceType.FORWARD
      if (uploads.length > 0 && !has(permissions, Permission.ATTACH_FILES)) return yield* missingPermissions()
      yield* checkShape(request, forward, uploads)
      const target = reference === undefined
        ? undefined
        : yield* referencedTarget(state, channelId, context.guildId, reference, referenced)
      const replyTo = forward ? undefined : target
      const author = state.members.get(context.actorId)
      if (author === undefined) return yield* missingAccess()
      const content = request.content ?? ""
      const embeds = yield* embedsFor(request.embeds, permissions)
      const stickers = yield* stickersFor(state, request.sticker_ids ?? [])
      const message: MessageResponse = {
        id: nextMessageId(messages, context.operationId).toString(),
        channel_id: channelId,
        author: author.user,
        type: replyTo === undefined ? MessageType.DEFAULT : MessageType.REPLY,
        flags: sendableFlags(request.flags),
        content,
        timestamp: new Date(context.now).toISOString(),
        edited_timestamp: null,
        pinned: false,
        ...mentionsIn(state, content, request.allowed_mentions, permissions, pingableAuthor(replyTo)),
        tts: (request.tts ?? false) && has(permissions, Permission.SEND_TTS_MESSAGES),
        embeds,
        attachments: uploads,
        ...(stickers.length === 0 ? {} : { stickers }),
        ...(target === undefined || reference === undefined ? {} : {
          message_reference: {
            channel_id: target.channel_id,
            message_id: target.id,
            guild_id: reference.guild_id ?? (state.channels.has(target.channel_id) ? context.guildId : null),
            type: forward ? MessageReferenceType.FORWARD : MessageReferenceType.REPLY
          }
        }),
        ...(forward && target !== undefined ? { message_snapshots: [snapshotOf(target)] } : {}),
        ...(replyTo === undefined ? {} : { referenced_message: withoutReferenced(replyTo) }),
        ...(nonce === null ? {} : { nonce })
      }
      return posted(state, message, context)
    })
)

/**
 * What posting `message` in its channel decides, whoever wrote it (a member,
 * a webhook): the window takes it, its row is written, MESSAGE_CREATE goes out.
 */
export const posted = (state: GuildState, message: MessageResponse, context: { readonly guildId: string; readonly now: number }) => {
  const messages = messagesOf(state, message.channel_id)
  const entry = entryOf(message)
  const sent: ChannelMessages = {
    ...appended(messages, entry),
    lastSent: messages.lastSent.with(message.author.id, context.now)
  }
  return {
    next: { ...state, channelMessages: state.channelMessages.with(message.channel_id, sent) },
    reply: message,
    replyJson: entry.json,
    rows: [messageRow(context.guildId, message)],
    audit: [],
    events: [messageEvent("MESSAGE_CREATE", state, context.guildId, message)]
  }
}

/** POST /channels/{id}/typing: whoever may send there; no event when the guild switched typing events off. */
export const startTyping = write("StartTyping", { channelId: CarriedId.ChannelId }, Schema.Null, (state, { channelId }, context) =>
  Effect.map(sendableChannel(state, context.actorId, channelId, context.now), () => {
    const quiet = (state.guild.disabled_operations & DisabledOperation.TYPING_EVENTS) !== 0
    const member = state.members.get(context.actorId)
    const data = {
      channel_id: channelId,
      guild_id: context.guildId,
      user_id: context.actorId,
      timestamp: Math.floor(context.now / 1000),
      member: member === undefined ? undefined : memberView(member)
    }
    return { ...unchanged(state, null), events: quiet ? [] : [{ type: "TYPING_START", data }] }
  }))

export const messagesWrites = [createMessage, startTyping] as const
