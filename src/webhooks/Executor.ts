import { Context, type Effect } from "effect"
import type { RichEmbedRequest } from "../model/MessageRequests.ts"
import type { MessageResponse } from "../model/Messages.ts"
import type { BadRequest, Forbidden, NotFound, TooManyRequests, Unauthorized, Unavailable } from "../model/Errors.ts"

/**
 * What an inbound format (source control, error tracker, chat tool, status
 * page) makes of one event: the message the webhook posts. The same shape as
 * the plain execute body's content, embeds and author overrides.
 */
export interface WebhookDraft {
  readonly content?: string
  readonly embeds?: ReadonlyArray<RichEmbedRequest>
  readonly username?: string
  readonly avatar_url?: string
}

export type WebhookCallError = BadRequest | Forbidden | NotFound | TooManyRequests | Unauthorized | Unavailable

/**
 * Posting as a webhook, for the execute route and every inbound format: the
 * token checked (a wrong token and an unknown webhook answer alike), the
 * webhook's rate limit taken, the message written through its guild's actor.
 */
export class WebhookExecutor extends Context.Service<WebhookExecutor, {
  /** Checks the token (and the webhook's rate limit) without posting: for events a format ignores. */
  readonly authenticate: (webhookId: string, token: string) => Effect.Effect<void, WebhookCallError>
  /** Posts the draft as the webhook's message and answers it. */
  readonly execute: (webhookId: string, token: string, draft: WebhookDraft) => Effect.Effect<MessageResponse, WebhookCallError>
}>()("guildhall/WebhookExecutor") {}
