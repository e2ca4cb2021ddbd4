import { Context, Effect, Layer } from "effect"
import * as WebhookMessages from "../../shards/guild/operations/WebhookMessages.ts"
import * as Webhooks from "../../shards/guild/operations/Webhooks.ts"
import { Actors } from "../guilds/Actors.ts"
import type { BadRequest, Forbidden, NotFound, Unavailable } from "../model/Errors.ts"
import type { MessageCreateRequest } from "../model/MessageRequests.ts"
import type { MessageAttachmentResponse, MessageResponse } from "../model/Messages.ts"
import type { WebhookTokenResponse } from "../model/Webhooks.ts"
import { CarriedId } from "../model/Ids.ts"
import { tokenHash } from "../platform/Crypto.ts"
import { WebhookDirectory } from "./Directory.ts"

type CallError = BadRequest | Forbidden | NotFound | Unavailable

/** Hex SHA-256 of a presented token: all the guild actor is ever shown of it. */
export const hashOf = (token: string) => tokenHash(token).toString("hex")

/**
 * What a caller holding a webhook's token may do, through the webhook's guild
 * actor (which checks the token): read it, post as it. Shared by the by-token
 * routes and the executor of the inbound formats; rate limits are the
 * caller's to take (WebhookRateLimits), once per request.
 */
export class WebhookCalls extends Context.Service<WebhookCalls, {
  /** The webhook, its `token` the one presented; 404 UNKNOWN_WEBHOOK for a wrong token or none. */
  readonly webhook: (webhookId: string, token: string) => Effect.Effect<WebhookTokenResponse, CallError>
  readonly post: (
    webhookId: string,
    token: string,
    request: MessageCreateRequest,
    extras: { readonly username?: string | undefined; readonly uploads?: ReadonlyArray<MessageAttachmentResponse> | undefined }
  ) => Effect.Effect<MessageResponse, CallError>
}>()("guildhall/WebhookCalls") {
  static readonly layer = Layer.effect(
    WebhookCalls,
    Effect.gen(function*() {
      const actors = yield* Actors
      const directory = yield* WebhookDirectory
      // A token-holder is no user: the webhook's own id stands as who acts (nothing of it is audited).
      const webhook = (webhookId: string, token: string) =>
        directory.inGuildOf(webhookId, (guildId) =>
          Effect.map(
            actors.read(guildId, Webhooks.getWebhookByToken, {
              webhookId: CarriedId.WebhookId.make(webhookId),
              tokenHash: hashOf(token)
            }, webhookId),
            (found) => ({ ...found, token })
          ))
      const post = (
        webhookId: string,
        token: string,
        request: MessageCreateRequest,
        extras: { readonly username?: string | undefined; readonly uploads?: ReadonlyArray<MessageAttachmentResponse> | undefined }
      ) =>
        directory.inGuildOf(webhookId, (guildId) =>
          actors.write(guildId, WebhookMessages.createWebhookMessage, {
            webhookId: CarriedId.WebhookId.make(webhookId),
            tokenHash: hashOf(token),
            request,
            username: extras.username,
            uploads: extras.uploads
          }, { actorId: webhookId }))
      return WebhookCalls.of({ webhook, post })
    })
  ).pipe(Layer.provide(WebhookDirectory.layer))
}
