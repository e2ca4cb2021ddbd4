import { Effect, Schema } from "effect"
import { BadRequest, Forbidden, invalidField, missingPermissions } from "../../../src/model/Errors.ts"
import { MessageUpdateRequest } from "../../../src/model/MessageRequests.ts"
import { MessageFlag, MessageResponse } from "../../../src/model/Messages.ts"
import { snowflakeTime } from "../../../src/platform/Snowflake.ts"
import { managedChannel, visibleChannel } from "../channels/ChannelAccess.ts"
import { channelPermissions } from "../channels/ChannelPermissions.ts"
import { communicationDisabled, existingMessage, isEmpty, messagesOf, silenced } from "../messages/MessageAccess.ts"
import { embedsFor, mentionsIn, pingableAuthor } from "../messages/MessageDraft.ts"
import { deleteMessages, entryOf, updateMessage } from "../messages/MessageRows.ts"
import type { ChannelMessages } from "../messages/MessageWindow.ts"
import { unchanged, write } from "../Definitions.ts"
import { has, Permission } from "../../../src/model/Permissions.ts"
import type { GuildState } from "../State.ts"
import { CarriedId } from "../../../src/model/Ids.ts"
import { messageEvent, wholeMessageDeleted } from "../messages/MessageEvents.ts"

/** Audit log action types (part C, AuditLogActionType). */
const MESSAGE_DELETE = 72
const MESSAGE_BULK_DELETE = 73

/** Bulk deletion reaches back this far (snowflake time). */
const BULK_DELETE_MAX_AGE_MS = 14 * 24 * 3600_000

/** The flags an edit may change. */
const EDITABLE_FLAGS = MessageFlag.SUPPRESS_EMBEDS

const withMessages = (state: GuildState, channelId: string, messages: ChannelMessages): GuildState => ({
  ...state,
  channelMessages: state.channelMessages.with(channelId, messages)
})

/** The attachments an edit keeps: those it lists, each of the message. Guild and DM channels alike. */
export const keptAttachments = (before: MessageResponse, listed: MessageUpdateRequest["attachments"]) =>
  Effect.gen(function*() {
    if (listed === undefined) return before.attachments
    const ids = listed.map((a) => String(a.id))
    if (new Set(ids).size !== ids.length) {
      return yield* invalidField("attachments", "DUPLICATE_ATTACHMENT_IDS_NOT_ALLOWED", "An attachment is listed twice")
    }
    const missing = ids.findIndex((id) => !before.attachments.some((a) => a.id === id))
    if (missing >= 0) {
      return yield* invalidField(`attachments.${missing}`, "ATTACHMENT_ID_NOT_FOUND_IN_MESSAGE", "Not an attachment of the message")
    }
    return before.attachments.filter((a) => ids.includes(a.id))
  })

/** A forward's text and embeds are the forwarded message's: they stay as they are. Guild and DM channels alike. */
export const checkSnapshotEdit = (before: MessageResponse, patch: MessageUpdateRequest): Effect.Effect<void, BadRequest> =>
  before.message_snapshots !== undefined && (patch.content !== undefined || patch.embeds !== undefined)
    ? Effect.fail(invalidField("content", "MESSAGES_WITH_SNAPSHOTS_CANNOT_BE_EDITED", "A forward cannot be edited"))
    : Effect.void

/**
 * PATCH /channels/{id}/messages/{message_id}: the author edits their message;
 * others with MANAGE_MESSAGES may only change its flags (suppress embeds).
 * `current` is the message as the caller read it from Postgres, when it is
 * older than the window.
 */
export const editMessage = write(
  "EditMessage",
  { channelId: CarriedId.ChannelId, messageId: CarriedId.MessageId, patch: MessageUpdateRequest, current: Schema.optional(MessageResponse) },
  MessageResponse,
  (state, { channelId, messageId, patch, current }, context) =>
    Effect.gen(function*() {
      const channel = yield* visibleChannel(state, context.actorId, channelId)
      const permissions = channelPermissions(state, context.actorId, channel, context.now)
      const messages = messagesOf(state, channelId)
      const before = yield* existingMessage(messages, messageId, current)
      const flagsOnly = patch.content === undefined && patch.embeds === undefined && patch.attachments === undefined &&
        patch.allowed_mentions === undefined
      if (before.author.id !== context.actorId && !(flagsOnly && has(permissions, Permission.MANAGE_MESSAGES))) {
        return yield* new Forbidden({ code: "CANNOT_EDIT_OTHER_USER_MESSAGE", message: "Cannot edit another user's message" })
      }
      if (!flagsOnly && silenced(state, context.actorId, context.now)) return yield* communicationDisabled()
      return yield* edited(state, before, patch, permissions, context)
    })
)

/**
 * What an allowed edit of `before` decides, whoever edits it (its author, a
 * moderator changing flags, its webhook): the new text, embeds (with
 * `permissions`' EMBED_LINKS), kept attachments, flags and pings; the window's
 * copy, the row and MESSAGE_UPDATE.
 */
export const edited = (
  state: GuildState,
  before: MessageResponse,
  patch: MessageUpdateRequest,
  permissions: bigint,
  context: { readonly guildId: string; readonly now: number }
) =>
  Effect.gen(function*() {
    const channelId = before.channel_id
    const messages = messagesOf(state, channelId)
    yield* checkSnapshotEdit(before, patch)
    const content = patch.content === undefined ? before.content : patch.content ?? ""
    const embeds = patch.embeds === undefined ? before.embeds : yield* embedsFor(patch.embeds, permissions)
    const attachments = yield* keptAttachments(before, patch.attachments)
    const flags = patch.flags === undefined ? before.flags : (before.flags & ~EDITABLE_FLAGS) | (patch.flags & EDITABLE_FLAGS)
    const changed = content !== before.content || patch.embeds !== undefined || attachments.length !== before.attachments.length
    const mentions = changed || patch.allowed_mentions !== undefined
      ? mentionsIn(state, content, patch.allowed_mentions, permissions, pingableAuthor(before.referenced_message))
      : before
    const after: MessageResponse = {
      ...before,
      content,
      embeds,
      attachments,
      flags,
      mentions: mentions.mentions,
      mention_roles: mentions.mention_roles,
      mention_everyone: mentions.mention_everyone,
      edited_timestamp: changed ? new Date(context.now).toISOString() : before.edited_timestamp
    }
    if (isEmpty(after)) return yield* new BadRequest({ code: "CANNOT_SEND_EMPTY_MESSAGE", message: "Cannot send an empty message" })
    if (!changed && flags === before.flags && patch.allowed_mentions === undefined) return unchanged(state, before)
    const inWindow = messages.window.find(BigInt(before.id)) !== undefined
    return {
      next: inWindow ? withMessages(state, channelId, { ...messages, window: messages.window.replaced(entryOf(after)) }) : state,
      reply: after,
      persist: updateMessage(after),
      audit: [],
      events: [messageEvent("MESSAGE_UPDATE", state, context.guildId, after)]
    }
  })

/** What removing `message` decides, whoever removes it: the window forgets it, the row goes, MESSAGE_DELETE. */
export const removed = (state: GuildState, message: MessageResponse, guildId: string) => {
  const messages = messagesOf(state, message.channel_id)
  return {
    next: withMessages(state, message.channel_id, { ...messages, window: messages.window.without(new Set([BigInt(message.id)])) }),
    reply: null,
    persist: deleteMessages(message.channel_id, [message.id]),
    events: [wholeMessageDeleted(guildId, message)]
  }
}

/** DELETE /channels/{id}/messages/{message_id}: the author, or MANAGE_MESSAGES (audited). */
export const deleteMessage = write(
  "DeleteMessage",
  { channelId: CarriedId.ChannelId, messageId: CarriedId.MessageId, current: Schema.optional(MessageResponse) },
  Schema.Null,
  (state, { channelId, messageId, current }, context) =>
    Effect.gen(function*() {
      const channel = yield* visibleChannel(state, context.actorId, channelId)
      const messages = messagesOf(state, channelId)
      const message = yield* existingMessage(messages, messageId, current)
      const own = message.author.id === context.actorId
      if (!own && !has(channelPermissions(state, context.actorId, channel, context.now), Permission.MANAGE_MESSAGES)) {
        return yield* missingPermissions()
      }
      return {
        ...removed(state, message, context.guildId),
        audit: own ? [] : [{
          actionType: MESSAGE_DELETE,
          targetId: message.author.id,
          changes: [],
          options: { channel_id: channelId, count: "1" }
        }]
      }
    })
)

/**
 * POST /channels/{id}/messages/bulk-delete: MANAGE_MESSAGES, 2 to 100
 * messages, none older than 14 days. Ids of no message count and are ignored.
 */
export const bulkDeleteMessages = write(
  "BulkDeleteMessages",
  {
    channelId: CarriedId.ChannelId,
    messageIds: Schema.Array(CarriedId.MessageId),
    /** Those of `messageIds` under a legal hold: skipped, they stay. */
    heldMessageIds: Schema.optional(Schema.Array(Schema.String))
  },
  Schema.Null,
  (state, { channelId, messageIds, heldMessageIds }, context) =>
    Effect.gen(function*() {
      yield* managedChannel(state, context.actorId, channelId, Permission.MANAGE_MESSAGES, context.now)
      const ids = [...new Set(messageIds)]
      if (ids.length === 0) return yield* invalidField("messages", "MESSAGE_IDS_CANNOT_BE_EMPTY", "No messages to delete")
      if (ids.length < 2) {
        return yield* new BadRequest({
          code: "INVALID_FORM_BODY",
          message: "Invalid form body",
          errors: [{ path: "messages", message: "Bulk deletion takes 2 to 100 messages" }]
        })
      }
      const old = ids.findIndex((id) => snowflakeTime(id) < context.now - BULK_DELETE_MAX_AGE_MS)
      if (old >= 0) {
        return yield* new BadRequest({
          code: "INVALID_FORM_BODY",
          message: "Invalid form body",
          errors: [{ path: `messages.${old}`, message: "Only messages under 14 days old can be deleted in bulk" }]
        })
      }
      const messages = messagesOf(state, channelId)
      const held = new Set(heldMessageIds ?? [])
      const gone = ids.filter((id) => !held.has(id))
      if (gone.length === 0) return unchanged(state, null)
      return {
        next: withMessages(state, channelId, { ...messages, window: messages.window.without(new Set(gone.map((id) => BigInt(id)))) }),
        reply: null,
        persist: deleteMessages(channelId, gone),
        audit: [{ actionType: MESSAGE_BULK_DELETE, targetId: channelId, changes: [], options: { count: String(gone.length) } }],
        events: [{ type: "MESSAGE_DELETE_BULK", data: { ids: gone, channel_id: channelId, guild_id: context.guildId } }]
      }
    })
)

export const messageEditWrites = [editMessage, deleteMessage, bulkDeleteMessages] as const
