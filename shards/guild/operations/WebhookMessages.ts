import { Effect, Schema } from "effect"
import { ChannelType } from "../../../src/model/Channels.ts"
import { BadRequest, type NotFound } from "../../../src/model/Errors.ts"
import { CarriedId } from "../../../src/model/Ids.ts"
import { MessageCreateRequest, MessageUpdateRequest } from "../../../src/model/MessageRequests.ts"
import { MessageAttachmentResponse, MessageResponse, MessageType } from "../../../src/model/Messages.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import { read, write } from "../Definitions.ts"
import { existingMessage, messagesOf, unknownMessage } from "../messages/MessageAccess.ts"
import { checkShape, embedOf, mentionsIn, sendableFlags } from "../messages/MessageDraft.ts"
import { knownAbsent } from "../messages/MessageWindow.ts"
import { messageJsonFor } from "../messages/WindowReactions.ts"
import type { GuildState } from "../State.ts"
import { webhookAuthor } from "../webhooks/GuildWebhook.ts"
import { edited, removed } from "./MessageEdits.ts"
import { nextMessageId, posted } from "./Messages.ts"
import { webhookByToken } from "./Webhooks.ts"

/** A webhook pings nobody: the production service posts its messages with `allowed_mentions: {parse: []}`. */
const NO_PINGS = { parse: [] } as const

/** What a webhook may put in its messages besides text: embeds, whatever any member may. */
const WEBHOOK_PERMISSIONS = Permission.EMBED_LINKS

const TokenFields = { webhookId: CarriedId.WebhookId, tokenHash: Schema.String }

/**
 * POST /webhooks/{id}/{token}: the webhook posts in its channel, as itself
 * (a bot author with the webhook's id, its name or `username`, its picture or
 * the `avatar_url` one).
 * No member, so no permission, slowmode or timeout applies; the channel must
 * still be a text channel of the guild.
 */
export const createWebhookMessage = write(
  "CreateWebhookMessage",
  {
    ...TokenFields,
    request: MessageCreateRequest,
    /** The name this one message shows instead of the webhook's. */
    username: Schema.optional(Schema.String),
    /** The picture this one message shows instead of the webhook's (its `avatar_url`, already stored): a media hash. */
    avatar: Schema.optional(Schema.String),
    /** Files of a multipart execute, already stored. */
    uploads: Schema.optional(Schema.Array(MessageAttachmentResponse))
  },
  MessageResponse,
  (state, { webhookId, tokenHash, request, username, avatar, uploads = [] }, context) =>
    Effect.gen(function*() {
      const webhook = yield* webhookByToken(state, webhookId, tokenHash)
      const channel = state.channels.get(webhook.channel_id)
      if (channel?.type !== ChannelType.TEXT) {
        return yield* new BadRequest({
          code: "CANNOT_SEND_MESSAGES_IN_NON_TEXT_CHANNEL",
          message: "Cannot send messages in a non-text channel"
        })
      }
      // A webhook replies to nothing and sends no stickers or saved media: those fields are not its to use.
      const shaped = { ...request, message_reference: undefined, sticker_ids: undefined, favorite_meme_id: undefined }
      yield* checkShape(shaped, false, uploads)
      const content = request.content ?? ""
      const message: MessageResponse = {
        id: nextMessageId(messagesOf(state, channel.id), context.operationId).toString(),
        channel_id: channel.id,
        author: webhookAuthor(webhook.id, username ?? webhook.name, avatar ?? webhook.avatar),
        webhook_id: webhook.id,
        type: MessageType.DEFAULT,
        flags: sendableFlags(request.flags),
        content,
        timestamp: new Date(context.now).toISOString(),
        edited_timestamp: null,
        pinned: false,
        ...mentionsIn(state, content, NO_PINGS, WEBHOOK_PERMISSIONS, undefined),
        tts: request.tts ?? false,
        embeds: (request.embeds ?? []).map(embedOf),
        attachments: uploads
      }
      return posted(state, message, context)
    })
)

/** The webhook's own message `messageId` in its channel: another's (or none) is UNKNOWN_MESSAGE. */
const ownMessage = (
  state: GuildState,
  webhookId: string,
  channelId: string,
  messageId: string,
  current: MessageResponse | undefined
): Effect.Effect<MessageResponse, NotFound> =>
  Effect.flatMap(existingMessage(messagesOf(state, channelId), messageId, current), (message) =>
    message.webhook_id === webhookId ? Effect.succeed(message) : Effect.fail(unknownMessage()))

interface WindowCopy {
  readonly channelId: string
  readonly json: string | null
}

/**
 * GET /webhooks/{id}/{token}/messages/{message_id}: the webhook's channel, and
 * the message's JSON from the window, or null when only Postgres may have it
 * (the caller reads it there and checks it is the webhook's).
 */
export const getWebhookMessage = read(
  "GetWebhookMessage",
  { ...TokenFields, messageId: CarriedId.MessageId },
  Schema.Struct({ channelId: Schema.String, json: Schema.NullOr(Schema.String) }),
  (state, { webhookId, tokenHash, messageId }, viewerId) =>
    Effect.flatMap(webhookByToken(state, webhookId, tokenHash), (webhook): Effect.Effect<WindowCopy, NotFound> => {
      const messages = messagesOf(state, webhook.channel_id)
      const id = BigInt(messageId)
      const entry = messages.window.find(id)
      if (entry === undefined) {
        return knownAbsent(messages, id) ? Effect.fail(unknownMessage()) : Effect.succeed({ channelId: webhook.channel_id, json: null })
      }
      return Effect.as(
        ownMessage(state, webhookId, webhook.channel_id, messageId, undefined),
        { channelId: webhook.channel_id, json: messageJsonFor(messages, entry, viewerId) }
      )
    })
)

/** PATCH /webhooks/{id}/{token}/messages/{message_id}: as an author's edit, embeds allowed, nobody pinged. */
export const editWebhookMessage = write(
  "EditWebhookMessage",
  { ...TokenFields, messageId: CarriedId.MessageId, patch: MessageUpdateRequest, current: Schema.optional(MessageResponse) },
  MessageResponse,
  (state, { webhookId, tokenHash, messageId, patch, current }, context) =>
    Effect.gen(function*() {
      const webhook = yield* webhookByToken(state, webhookId, tokenHash)
      const before = yield* ownMessage(state, webhookId, webhook.channel_id, messageId, current)
      return yield* edited(state, before, { ...patch, allowed_mentions: NO_PINGS }, WEBHOOK_PERMISSIONS, context)
    })
)

/** DELETE /webhooks/{id}/{token}/messages/{message_id}: its own message; nothing audited (no moderator acted). */
export const deleteWebhookMessage = write(
  "DeleteWebhookMessage",
  { ...TokenFields, messageId: CarriedId.MessageId, current: Schema.optional(MessageResponse) },
  Schema.Null,
  (state, { webhookId, tokenHash, messageId, current }, context) =>
    Effect.gen(function*() {
      const webhook = yield* webhookByToken(state, webhookId, tokenHash)
      const message = yield* ownMessage(state, webhookId, webhook.channel_id, messageId, current)
      return { ...removed(state, message, context.guildId), audit: [] }
    })
)

export const webhookMessageWrites = [createWebhookMessage, editWebhookMessage, deleteWebhookMessage] as const
export const webhookMessageReads = [getWebhookMessage] as const
