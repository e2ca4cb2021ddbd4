import { Effect, Layer, Schema, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import * as WebhookMessages from "../../shards/guild/operations/WebhookMessages.ts"
import * as Webhooks from "../../shards/guild/operations/Webhooks.ts"
import { Actors } from "../guilds/Actors.ts"
import { auditReason } from "../guilds/AuditReason.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { fieldErrors } from "../http/ErrorResponses.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { jsonResponse } from "../http/SharedBodies.ts"
import { MediaStore } from "../media/MediaStore.ts"
import { MessageUploads } from "../messages/attachments/MessageUploads.ts"
import { ChannelLookup } from "../messages/ChannelLookup.ts"
import { checkContentLength } from "../messages/ContentLength.ts"
import { Limits } from "../platform/Limits.ts"
import { legalHoldCheck } from "../messages/LegalHoldCheck.ts"
import { MessagesRepo } from "../messages/Repo.ts"
import { BadRequest, unknown } from "../model/Errors.ts"
import { CarriedId, type MessageId, type WebhookId } from "../model/Ids.ts"
import type { WebhookResponse, WebhookTokenResponse } from "../model/Webhooks.ts"
import { WebhookMessageRequest } from "../model/Webhooks.ts"
import { newToken } from "../platform/Crypto.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { storeAvatar } from "./Avatars.ts"
import { hashOf, WebhookCalls } from "./Calls.ts"
import { WebhookDirectory } from "./Directory.ts"
import { WebhookBuckets, WebhookRateLimits } from "./RateLimits.ts"

/** The author overrides of a multipart execute, read from its `payload_json`. */
const decodeOverrides = Schema.decodeUnknownEffect(Schema.Struct({
  username: WebhookMessageRequest.fields.username,
  avatar_url: WebhookMessageRequest.fields.avatar_url
}))

const tokenView = ({ user: _, ...webhook }: WebhookResponse, token: string): WebhookTokenResponse => ({ ...webhook, token })

const WebhooksHandlers = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const channels = yield* ChannelLookup
    const directory = yield* WebhookDirectory
    const limits = yield* WebhookRateLimits
    const snowflakes = yield* Snowflakes
    const avatarOf = storeAvatar(yield* MediaStore)

    return handlers
      .handle("listChannel", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const guildId = yield* channels.guildOf(params.channel_id)
          return yield* actors.read(guildId, Webhooks.listChannelWebhooks, { channelId: params.channel_id, now: Date.now() }, me.id)
        }))
      .handle("create", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const reason = yield* auditReason
          const guildId = yield* channels.guildOf(params.channel_id)
          // Who may not make one stores no picture: the right is asked first when there is one.
          if (payload.avatar != null) {
            yield* actors.read(guildId, Webhooks.listChannelWebhooks, { channelId: params.channel_id, now: Date.now() }, me.id)
          }
          const avatar = yield* avatarOf(payload.avatar)
          // Shown once, in this answer; the actor and Postgres keep only its hash.
          const token = newToken()
          const created = yield* actors.write(guildId, Webhooks.createWebhook, {
            channelId: params.channel_id,
            webhookId: CarriedId.WebhookId.make(snowflakes.next()),
            tokenHash: hashOf(token),
            name: payload.name.trim(),
            avatar: avatar ?? null
          }, { actorId: me.id, reason })
          return { ...created, token }
        }))
      .handle("listGuild", ({ params }) =>
        Effect.flatMap(CurrentUser, (me) => actors.read(params.guild_id, Webhooks.listGuildWebhooks, { now: Date.now() }, me.id)))
      .handle("get", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* limits.take(WebhookBuckets.read, params.webhook_id)
          return yield* directory.inGuildOf(params.webhook_id, (guildId) =>
            actors.read(guildId, Webhooks.getWebhook, { webhookId: params.webhook_id, now: Date.now() }, me.id))
        }))
      .handle("update", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const reason = yield* auditReason
          yield* limits.take(WebhookBuckets.update, params.webhook_id)
          const guildId = yield* directory.guildOf(params.webhook_id)
          if (payload.avatar != null) {
            yield* directory.inGuildOf(params.webhook_id, () =>
              actors.read(guildId, Webhooks.getWebhook, { webhookId: params.webhook_id, now: Date.now() }, me.id))
          }
          const avatar = yield* avatarOf(payload.avatar)
          return yield* directory.inGuildOf(params.webhook_id, () =>
            actors.write(guildId, Webhooks.updateWebhook, {
              webhookId: params.webhook_id,
              patch: {
                name: payload.name?.trim(),
                avatar,
                channelId: payload.channel_id === undefined ? undefined : CarriedId.ChannelId.make(payload.channel_id)
              }
            }, { actorId: me.id, reason }))
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const reason = yield* auditReason
          yield* limits.take(WebhookBuckets.delete, params.webhook_id)
          yield* directory.inGuildOf(params.webhook_id, (guildId) =>
            actors.write(guildId, Webhooks.deleteWebhook, { webhookId: params.webhook_id }, { actorId: me.id, reason }))
        }))
  })))

const WebhookTokensHandlers = HttpApiBuilder.group(Api, "webhookTokens", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const directory = yield* WebhookDirectory
    const calls = yield* WebhookCalls
    const limits = yield* WebhookRateLimits
    const uploads = yield* MessageUploads
    const repo = yield* MessagesRepo
    const instanceLimits = yield* Limits
    const holds = legalHoldCheck(yield* SqlClient.SqlClient)
    const avatarOf = storeAvatar(yield* MediaStore)

    /**
     * The webhook's own message, and the copy the actor needs of it when it is
     * older than the window; another webhook's message (or a user's) is unknown.
     */
    const ownMessage = (webhookId: WebhookId, token: string, messageId: MessageId) =>
      directory.inGuildOf(webhookId, (guildId) =>
        Effect.gen(function*() {
          const { channelId, json } = yield* actors.read(guildId, WebhookMessages.getWebhookMessage, {
            webhookId,
            tokenHash: hashOf(token),
            messageId
          }, webhookId)
          if (json !== null) return { guildId, json, older: undefined }
          const stored = yield* repo.find(channelId, messageId)
          if (stored === undefined || stored.webhook_id !== webhookId) return yield* unknown("MESSAGE")
          return { guildId, json: null, older: stored }
        }))

    return handlers
      .handle("get", ({ params }) =>
        Effect.andThen(limits.take(WebhookBuckets.read, params.webhook_id), calls.webhook(params.webhook_id, params.token)))
      .handle("update", ({ params, payload }) =>
        Effect.gen(function*() {
          yield* limits.take(WebhookBuckets.update, params.webhook_id)
          // The token first: nobody stores a picture without it.
          yield* calls.webhook(params.webhook_id, params.token)
          const avatar = yield* avatarOf(payload.avatar)
          const updated = yield* directory.inGuildOf(params.webhook_id, (guildId) =>
            actors.write(guildId, Webhooks.updateWebhook, {
              webhookId: params.webhook_id,
              tokenHash: hashOf(params.token),
              patch: { name: payload.name?.trim(), avatar }
            }, { actorId: params.webhook_id }))
          return tokenView(updated, params.token)
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          yield* limits.take(WebhookBuckets.delete, params.webhook_id)
          yield* directory.inGuildOf(params.webhook_id, (guildId) =>
            actors.write(guildId, Webhooks.deleteWebhook, {
              webhookId: params.webhook_id,
              tokenHash: hashOf(params.token)
            }, { actorId: params.webhook_id }))
        }))
      .handle("execute", ({ params, query, payload: body, request }) =>
        Effect.gen(function*() {
          yield* limits.take(WebhookBuckets.execute, params.webhook_id)
          const received = Stream.isStream(body)
            ? yield* Effect.gen(function*() {
              // The token is checked before the files are read: with a wrong one no file is read or stored
              // (and the refusal is UNKNOWN_WEBHOOK), while payload_json is still checked first, as everywhere.
              const tokenKnown = yield* Effect.as(calls.webhook(params.webhook_id, params.token), true).pipe(
                Effect.catchIf((error) => error._tag === "NotFound", () => Effect.succeed(false))
              )
              const { request: message, uploads: files, json } = yield* uploads.receive(Effect.succeed(tokenKnown), body, request).pipe(
                Effect.catchIf((error) => !tokenKnown && error._tag === "Forbidden", () => Effect.fail(unknown("WEBHOOK")))
              )
              const overrides = yield* decodeOverrides(json).pipe(
                Effect.mapError((error) =>
                  new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors: fieldErrors(error, "Payload") }))
              )
              return { message, files, username: overrides.username, avatarUrl: overrides.avatar_url }
            })
            : (() => {
              const { username, avatar_url: avatarUrl, ...message } = body
              return { message, files: undefined, username, avatarUrl }
            })()
          yield* checkContentLength(instanceLimits.get, received.message.content)
          const posted = yield* calls.post(params.webhook_id, params.token, received.message, {
            username: received.username?.trim() ?? undefined,
            avatarUrl: received.avatarUrl,
            uploads: received.files
          })
          return query.wait === "true" ? posted : HttpServerResponse.empty({ status: 204 })
        }))
      .handle("getMessage", ({ params }) =>
        Effect.map(ownMessage(params.webhook_id, params.token, params.message_id), ({ json, older }) =>
          json === null ? older : jsonResponse(json)))
      .handle("editMessage", ({ params, payload }) =>
        Effect.gen(function*() {
          yield* checkContentLength(instanceLimits.get, payload.content)
          const { guildId, older } = yield* ownMessage(params.webhook_id, params.token, params.message_id)
          return yield* actors.write(guildId, WebhookMessages.editWebhookMessage, {
            webhookId: params.webhook_id,
            tokenHash: hashOf(params.token),
            messageId: params.message_id,
            patch: payload,
            current: older
          }, { actorId: params.webhook_id })
        }))
      .handle("deleteMessage", ({ params }) =>
        Effect.gen(function*() {
          yield* holds.refuseHeld(params.message_id)
          const { guildId, older } = yield* ownMessage(params.webhook_id, params.token, params.message_id)
          yield* actors.write(guildId, WebhookMessages.deleteWebhookMessage, {
            webhookId: params.webhook_id,
            tokenHash: hashOf(params.token),
            messageId: params.message_id,
            current: older
          }, { actorId: params.webhook_id })
        }))
  })))

const services = Layer.mergeAll(WebhookDirectory.layer, WebhookCalls.layer, WebhookRateLimits.layer, ChannelLookup.layer, MessagesRepo.layer, MessageUploads.layer, RateLimitLive)

/** The webhook routes: managed by members (MANAGE_WEBHOOKS), and used by whoever holds a token. */
export const WebhooksHttp = Layer.mergeAll(
  perRequestMiddlewaresOnly(WebhooksHandlers),
  perRequestMiddlewaresOnly(WebhookTokensHandlers)
).pipe(Layer.provide(services))
