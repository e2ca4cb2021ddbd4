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
import { jsonResponse } from "../http/SharedBodies.ts"
import { invalidField, TooManyRequests, unknown } from "../model/Errors.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { sharedJsonResponse } from "../http/SharedBodies.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { ChannelLookup } from "./ChannelLookup.ts"
import { checkContentLength } from "./ContentLength.ts"
import { Limits } from "../platform/Limits.ts"
import { legalHoldCheck } from "./LegalHoldCheck.ts"
import { SqlClient } from "effect/sql"
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
    const holds = legalHoldCheck(yield* SqlClient.SqlClient)
    const limits = yield* Limits

    const { stored, olderCopy, forwardedCopy, referencedCopy } = yield* messageCopies

    return handlers
      .handle("list", ({ params, query }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          if ([query.before, query.after, query.around].filter((cursor) => cursor !== undefined).length > 1) {
            return yield* invalidField("before", "CANNOT_SPECIFY_BOTH_BEFORE_AND_AFTER", "Give one of before, after and around")
          }
          return yield* channels.byOwner(params.channel_id, {
            dm: () => dms.listMessages(params.channel_id, me.id, query),
            guild: (guildId) =>
              Effect.gen(function*() {
                const page = { channelId: params.channel_id, ...query, limit: query.limit ?? DEFAULT_LIMIT }
                const json = yield* actors.read(guildId, MessageReads.listMessages, page, me.id)
                return json === null
                  ? yield* reactions.withReactions(yield* repo.page(params.channel_id, page), me.id)
                  : sharedJsonResponse(json)
              })
          })
        }))
      .handle("get", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          return yield* channels.byOwner(params.channel_id, {
            dm: () => dms.getMessage(params.channel_id, me.id, params.message_id),
            guild: (guildId) =>
              Effect.gen(function*() {
                const json = yield* actors.read(guildId, MessageReads.getMessage, {
                  channelId: params.channel_id,
                  messageId: params.message_id
                }, me.id)
                if (json !== null) return jsonResponse(json)
                const [message] = yield* reactions.withReactions([yield* stored(params.channel_id, params.message_id)], me.id)
                return message ?? (yield* Effect.fail(unknown("MESSAGE")))
              })
          })
        }))
      .handle("create", ({ params, payload: body, request }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const channelId = params.channel_id
          /** The request, its files stored once `mayAttach` allows them (a multipart create). */
          const receive = <E>(mayAttach: Effect.Effect<boolean, E>) =>
            Effect.gen(function*() {
              const received = Stream.isStream(body)
                ? yield* uploads.receive(mayAttach, body, request)
                : { request: body, uploads: undefined }
              yield* checkContentLength(limits.get, received.request.content)
              return received
            })
          return yield* channels.byOwner(channelId, {
            dm: () =>
              Effect.gen(function*() {
                const received = yield* receive(dms.maySend(channelId, me.id))
                const reference = received.request.message_reference ?? undefined
                // A forward's source is read here, as the sender may read it: the DM's actor reads only its own channel.
                const forwarded = reference?.type === MessageReferenceType.FORWARD
                  ? yield* forwardedCopy(reference.channel_id ?? channelId, reference, me.id)
                  : undefined
                return yield* dms.send(channelId, me.id, received.request, { uploads: received.uploads, forwarded })
              }),
            guild: (guildId) =>
              Effect.gen(function*() {
                const received = yield* receive(actors.read(guildId, checkAttach, { channelId, now: Date.now() }, me.id))
                const payload = received.request
                const reference = payload.message_reference ?? undefined
                const copy = reference === undefined ? undefined : yield* referencedCopy(guildId, channelId, reference, me.id)
                // The new message's JSON is the response as the actor rendered it; only a refusal is looked into.
                const json = yield* actors.writeJson(guildId, Messages.createMessage, {
                  channelId,
                  request: payload,
                  referenced: copy === undefined ? undefined : withoutReferenced(copy),
                  uploads: received.uploads
                }, { actorId: me.id })
                const reply: unknown = JSON.parse(json)
                return isSlowmodeRefusal(reply) ? yield* slowmode(reply.retry_after_ms) : jsonResponse(json)
              })
          })
        }))
      .handle("edit", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* checkContentLength(limits.get, payload.content)
          return yield* channels.byOwner(params.channel_id, {
            dm: () => dms.edit(params.channel_id, me.id, params.message_id, payload),
            guild: (guildId) =>
              Effect.flatMap(olderCopy(guildId, params.channel_id, params.message_id, me.id), (current) =>
                actors.write(guildId, MessageEdits.editMessage, {
                  channelId: params.channel_id,
                  messageId: params.message_id,
                  patch: payload,
                  current
                }, { actorId: me.id }))
          })
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const reason = yield* auditReason
          yield* holds.refuseHeld(params.message_id)
          yield* channels.byOwner(params.channel_id, {
            dm: () => dms.remove(params.channel_id, me.id, params.message_id),
            guild: (guildId) =>
              Effect.flatMap(olderCopy(guildId, params.channel_id, params.message_id, me.id), (current) =>
                actors.write(guildId, MessageEdits.deleteMessage, {
                  channelId: params.channel_id,
                  messageId: params.message_id,
                  current
                }, { actorId: me.id, reason }))
          })
        }))
      .handle("deleteAttachment", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          // Removing the last attachment deletes the message: a held one keeps all of it.
          yield* holds.refuseHeld(params.message_id)
          yield* channels.byOwner(params.channel_id, {
            dm: () => dms.deleteAttachment(params.channel_id, me.id, params.message_id, params.attachment_id),
            guild: (guildId) =>
              Effect.flatMap(olderCopy(guildId, params.channel_id, params.message_id, me.id), (current) =>
                actors.write(guildId, MessageAttachments.deleteAttachment, {
                  channelId: params.channel_id,
                  messageId: params.message_id,
                  attachmentId: params.attachment_id,
                  current
                }, { actorId: me.id }))
          })
        }))
      .handle("bulkDelete", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const reason = yield* auditReason
          const guildId = yield* channels.guildOf(params.channel_id)
          const messageIds = payload.messages ?? payload.message_ids ?? []
          yield* actors.write(guildId, MessageEdits.bulkDeleteMessages, {
            channelId: params.channel_id,
            messageIds,
            heldMessageIds: yield* holds.among(messageIds)
          }, { actorId: me.id, reason })
        }))
      .handle("typing", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* channels.byOwner(params.channel_id, {
            dm: () => dms.typing(params.channel_id, me.id),
            guild: (guildId) => actors.write(guildId, Messages.startTyping, { channelId: params.channel_id }, { actorId: me.id })
          })
        }))
      .handle("ack", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const ack = { channelId: params.channel_id, messageId: params.message_id, mentionCount: payload.mention_count, manual: payload.manual }
          yield* channels.byOwner(params.channel_id, {
            dm: () => dms.ack(params.channel_id, me.id, params.message_id, { mentionCount: ack.mentionCount, manual: ack.manual }),
            guild: (guildId) => actors.write(guildId, ackMessages, { acks: [ack] }, { actorId: me.id })
          })
        }))
  })))

/** The message routes, with their Postgres side and the channel → guild lookup they route by. */
export const MessagesHttp = perRequestMiddlewaresOnly(MessagesHandlers).pipe(
  Layer.provide([ChannelLookup.layer, MessagesRepo.layer, ReactionsRepo.layer, RateLimitLive, Dms.layer, MessageUploads.layer])
)
