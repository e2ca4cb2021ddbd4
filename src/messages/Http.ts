import { Effect, Layer, Schema, Stream } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { ackMessages } from "../../shards/guild/operations/MessageAcks.ts"
import * as MessageAttachments from "../../shards/guild/operations/MessageAttachments.ts"
import * as MessageEdits from "../../shards/guild/operations/MessageEdits.ts"
import * as MessageReads from "../../shards/guild/operations/MessageReads.ts"
import { checkAttach } from "../../shards/guild/operations/MessageUploads.ts"
import * as Messages from "../../shards/guild/operations/Messages.ts"
import { Dms } from "../dms/Dms.ts"
import { Actors } from "../guilds/Actors.ts"
import { auditReason } from "../guilds/AuditReason.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { jsonResponse } from "../model/Common.ts"
import { invalidField, TooManyRequests, unknown } from "../model/Errors.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { sharedJsonResponse } from "../http/SharedBodies.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { ChannelLookup } from "./ChannelLookup.ts"
import { MessageUploads } from "./attachments/MessageUploads.ts"
import { ReactionsRepo } from "./reactions/Repo.ts"
import { messageCopies } from "./References.ts"
import { MessagesRepo } from "./Repo.ts"
import { DEFAULT_LIMIT } from "../model/MessageRequests.ts"
import { MessageReferenceType, withoutReferenced } from "../model/Messages.ts"

const isSlowmodeRefusal = Schema.is(Messages.SlowmodeRefusal)

/** 429 SLOWMODE_RATE_LIMITED, with Retry-After like every other rate limit. */
const slowmode = (retryAfterMillis: number) =>
  Effect.gen(function*() {
    const seconds = retryAfterMillis / 1000
    yield* HttpEffect.appendPreResponseHandler((_request, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(Math.max(1, Math.ceil(seconds))))))
    return yield* new TooManyRequests({
      code: "SLOWMODE_RATE_LIMITED",
      message: "This channel has a slowmode: wait before sending again",
      retry_after: Number(seconds.toFixed(3)),
      global: false
    })
  })

const MessagesHandlers = HttpApiBuilder.group(Api, "messages", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const channels = yield* ChannelLookup
    const repo = yield* MessagesRepo
    const uploads = yield* MessageUploads
    const dms = yield* Dms
    const reactions = yield* ReactionsRepo

    const { stored, olderCopy, forwardedCopy, referencedCopy } = yield* messageCopies

    return handlers
      .handle("list", ({ params, query }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          if ([query.before, query.after, query.around].filter((cursor) => cursor !== undefined).length > 1) {
            return yield* invalidField("before", "CANNOT_SPECIFY_BOTH_BEFORE_AND_AFTER", "Give one of before, after and around")
          }
          const guildId = yield* channels.guildOrDm(params.channel_id)
          if (guildId === null) return yield* dms.listMessages(params.channel_id, me.id, query)
          const page = { channelId: params.channel_id, ...query, limit: query.limit ?? DEFAULT_LIMIT }
          const json = yield* actors.read(guildId, MessageReads.listMessages, page, me.id)
          return json === null ? yield* reactions.withReactions(yield* repo.page(params.channel_id, page), me.id) : sharedJsonResponse(json)
        }))
      .handle("get", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          if (yield* dms.isDm(params.channel_id)) return yield* dms.getMessage(params.channel_id, me.id, params.message_id)
          const guildId = yield* channels.guildOf(params.channel_id)
          const json = yield* actors.read(guildId, MessageReads.getMessage, {
            channelId: params.channel_id,
            messageId: params.message_id
          }, me.id)
          if (json !== null) return jsonResponse(json)
          const [message] = yield* reactions.withReactions([yield* stored(params.channel_id, params.message_id)], me.id)
          return message ?? (yield* Effect.fail(unknown("MESSAGE")))
        }))
      .handle("create", ({ params, payload: body, request }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const channelId = params.channel_id
          const guildId = yield* channels.guildOrDm(channelId)
          const mayAttach = guildId === null
            ? dms.maySend(channelId, me.id)
            : actors.read(guildId, checkAttach, { channelId, now: Date.now() }, me.id)
          const received = Stream.isStream(body)
            ? yield* uploads.receive(mayAttach, body, request)
            : { request: body, uploads: undefined }
          const payload = received.request
          const reference = payload.message_reference ?? undefined
          if (guildId === null) {
            // A forward's source is read here, as the sender may read it: the DM's actor reads only its own channel.
            const forwarded = reference?.type === MessageReferenceType.FORWARD
              ? yield* forwardedCopy(reference.channel_id ?? channelId, reference, me.id)
              : undefined
            return yield* dms.send(channelId, me.id, payload, { uploads: received.uploads, forwarded })
          }
          const copy = reference === undefined ? undefined : yield* referencedCopy(guildId, params.channel_id, reference, me.id)
          // The new message's JSON is the response as the actor rendered it; only a refusal is looked into.
          const json = yield* actors.writeJson(guildId, Messages.createMessage, {
            channelId: params.channel_id,
            request: payload,
            referenced: copy === undefined ? undefined : withoutReferenced(copy),
            uploads: received.uploads
          }, { actorId: me.id })
          const reply: unknown = JSON.parse(json)
          return isSlowmodeRefusal(reply) ? yield* slowmode(reply.retry_after_ms) : jsonResponse(json)
        }))
      .handle("edit", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          if (yield* dms.isDm(params.channel_id)) return yield* dms.edit(params.channel_id, me.id, params.message_id, payload)
          const guildId = yield* channels.guildOf(params.channel_id)
          const current = yield* olderCopy(guildId, params.channel_id, params.message_id, me.id)
          return yield* actors.write(guildId, MessageEdits.editMessage, {
            channelId: params.channel_id,
            messageId: params.message_id,
            patch: payload,
            current
          }, { actorId: me.id })
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const reason = yield* auditReason
          if (yield* dms.isDm(params.channel_id)) return yield* dms.remove(params.channel_id, me.id, params.message_id)
          const guildId = yield* channels.guildOf(params.channel_id)
          const current = yield* olderCopy(guildId, params.channel_id, params.message_id, me.id)
          yield* actors.write(guildId, MessageEdits.deleteMessage, {
            channelId: params.channel_id,
            messageId: params.message_id,
            current
          }, { actorId: me.id, reason })
        }))
      .handle("deleteAttachment", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const guildId = yield* channels.guildOrDm(params.channel_id)
          if (guildId === null) {
            return yield* dms.deleteAttachment(params.channel_id, me.id, params.message_id, params.attachment_id)
          }
          const current = yield* olderCopy(guildId, params.channel_id, params.message_id, me.id)
          yield* actors.write(guildId, MessageAttachments.deleteAttachment, {
            channelId: params.channel_id,
            messageId: params.message_id,
            attachmentId: params.attachment_id,
            current
          }, { actorId: me.id })
        }))
      .handle("bulkDelete", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const reason = yield* auditReason
          const guildId = yield* channels.guildOf(params.channel_id)
          yield* actors.write(guildId, MessageEdits.bulkDeleteMessages, {
            channelId: params.channel_id,
            messageIds: payload.messages ?? payload.message_ids ?? []
          }, { actorId: me.id, reason })
        }))
      .handle("typing", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          if (yield* dms.isDm(params.channel_id)) return yield* dms.typing(params.channel_id, me.id)
          const guildId = yield* channels.guildOf(params.channel_id)
          yield* actors.write(guildId, Messages.startTyping, { channelId: params.channel_id }, { actorId: me.id })
        }))
      .handle("ack", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          if (yield* dms.isDm(params.channel_id)) {
            return yield* dms.ack(params.channel_id, me.id, params.message_id, { mentionCount: payload.mention_count, manual: payload.manual })
          }
          const guildId = yield* channels.guildOf(params.channel_id)
          yield* actors.write(guildId, ackMessages, {
            acks: [{ channelId: params.channel_id, messageId: params.message_id, mentionCount: payload.mention_count, manual: payload.manual }]
          }, { actorId: me.id })
        }))
  })))

/** The message routes, with their Postgres side and the channel → guild lookup they route by. */
export const MessagesHttp = perRequestMiddlewaresOnly(MessagesHandlers).pipe(
  Layer.provide([ChannelLookup.layer, MessagesRepo.layer, ReactionsRepo.layer, RateLimitLive, Dms.layer, MessageUploads.layer])
)
