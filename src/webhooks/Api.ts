import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { Credentials, UserAuthentication, userOrBot } from "../http/Authentication.ts"
import { ChannelPath, GuildPath } from "../http/Paths.ts"
import { ApiErrors } from "../model/Errors.ts"
import { MessageId, WebhookId } from "../model/Ids.ts"
import { MessageResponse } from "../model/Messages.ts"
import {
  WebhookCreateRequest,
  WebhookMessageEditRequest,
  WebhookMessageRequest,
  WebhookResponse,
  WebhookTokenResponse,
  WebhookTokenUpdateRequest,
  WebhookUpdateRequest
} from "../model/Webhooks.ts"
import { parserLimits } from "../messages/attachments/Uploads.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"

const WebhookPath = { webhook_id: WebhookId }
/** Any text: a wrong token is answered as an unknown webhook, never as a malformed path. */
const TokenPath = { webhook_id: WebhookId, token: Schema.String }
const TokenMessagePath = { ...TokenPath, message_id: MessageId }

/** An execute with files: `payload_json` and `files[n]`, as a message create with files (src/messages/Api.ts). */
const WebhookUpload = Schema.Struct({ payload_json: Schema.optional(Schema.String) }).pipe(
  HttpApiSchema.asMultipartStream(parserLimits)
)

/** The production service's buckets for the routes that name no webhook yet (per user). */
const bucket = (name: string, limit: number, windowSeconds: number) => ({ name: `webhook.${name}`, limit, windowMillis: windowSeconds * 1000 })

/** Webhooks as the members who manage them see them (MANAGE_WEBHOOKS). */
export class WebhooksApi extends HttpApiGroup.make("webhooks").add(
  HttpApiEndpoint.get("listChannel", "/channels/:channel_id/webhooks", {
    params: ChannelPath,
    success: Schema.Array(WebhookResponse),
    error: ApiErrors
  }).annotate(Credentials, userOrBot).annotate(RateLimitBucket, bucket("list.channel", 40, 10)).middleware(RateLimit),
  HttpApiEndpoint.post("create", "/channels/:channel_id/webhooks", {
    params: ChannelPath,
    payload: WebhookCreateRequest,
    success: WebhookResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot).annotate(RateLimitBucket, bucket("create", 10, 60)).middleware(RateLimit),
  HttpApiEndpoint.get("listGuild", "/guilds/:guild_id/webhooks", {
    params: GuildPath,
    success: Schema.Array(WebhookResponse),
    error: ApiErrors
  }).annotate(Credentials, userOrBot).annotate(RateLimitBucket, bucket("list.guild", 40, 10)).middleware(RateLimit),
  HttpApiEndpoint.get("get", "/webhooks/:webhook_id", { params: WebhookPath, success: WebhookResponse, error: ApiErrors })
    .annotate(Credentials, userOrBot),
  HttpApiEndpoint.patch("update", "/webhooks/:webhook_id", {
    params: WebhookPath,
    payload: WebhookUpdateRequest,
    success: WebhookResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.delete("delete", "/webhooks/:webhook_id", { params: WebhookPath, error: ApiErrors }).annotate(Credentials, userOrBot)
).middleware(UserAuthentication) {}

/** What the holder of a webhook's token may do, with no account: read, rename or delete it, post as it, edit its posts. */
export class WebhookTokensApi extends HttpApiGroup.make("webhookTokens").add(
  HttpApiEndpoint.get("get", "/webhooks/:webhook_id/:token", { params: TokenPath, success: WebhookTokenResponse, error: ApiErrors }),
  HttpApiEndpoint.patch("update", "/webhooks/:webhook_id/:token", {
    params: TokenPath,
    payload: WebhookTokenUpdateRequest,
    success: WebhookTokenResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.delete("delete", "/webhooks/:webhook_id/:token", { params: TokenPath, error: ApiErrors }),
  HttpApiEndpoint.post("execute", "/webhooks/:webhook_id/:token", {
    params: TokenPath,
    query: { wait: Schema.optional(Schema.String) },
    payload: [WebhookMessageRequest, WebhookUpload],
    success: MessageResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.get("getMessage", "/webhooks/:webhook_id/:token/messages/:message_id", {
    params: TokenMessagePath,
    success: MessageResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.patch("editMessage", "/webhooks/:webhook_id/:token/messages/:message_id", {
    params: TokenMessagePath,
    payload: WebhookMessageEditRequest,
    success: MessageResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.delete("deleteMessage", "/webhooks/:webhook_id/:token/messages/:message_id", {
    params: TokenMessagePath,
    error: ApiErrors
  })
) {}
