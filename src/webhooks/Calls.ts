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
import { AvatarOverrides } from "./AvatarOverrides.ts"
import { WebhookDirectory } from "./Directory.ts"

type CallError = BadRequest | Forbidden | NotFound | Unavailable

/** What one post shows besides its body: another name, another picture (a URL), files already stored. */
export interface PostExtras {
  readonly username?: string | undefined
  readonly avatarUrl?: string | null | undefined
  readonly uploads?: ReadonlyArray<MessageAttachmentResponse> | undefined
}

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
    extras: PostExtras
  ) => Effect.Effect<MessageResponse, CallError>
}>()("guildhall/WebhookCalls") {
  static readonly layer = Layer.effect(
    WebhookCalls,
    Effect.gen(function*() {
      const actors = yield* Actors
      const directory = yield* WebhookDirectory
      const avatars = yield* AvatarOverrides
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
        extras: PostExtras
      ) =>
        directory.inGuildOf(webhookId, (guildId) =>
          Effect.gen(function*() {
            // Only a caller holding the token makes this server fetch a picture.
            const avatar = extras.avatarUrl == null
              ? undefined
              : yield* Effect.andThen(webhook(webhookId, token), avatars.hashOf(extras.avatarUrl))
            return yield* actors.write(guildId, WebhookMessages.createWebhookMessage, {
              webhookId: CarriedId.WebhookId.make(webhookId),
              tokenHash: hashOf(token),
              request,
              username: extras.username,
              avatar,
              uploads: extras.uploads
            }, { actorId: webhookId })
          }))
      return WebhookCalls.of({ webhook, post })
    })
  ).pipe(Layer.provide([WebhookDirectory.layer, AvatarOverrides.layer]))
}
