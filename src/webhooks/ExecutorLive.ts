import { Effect, Layer } from "effect"
import { WebhookCalls } from "./Calls.ts"
import { WebhookExecutor } from "./Executor.ts"
import { WebhookBuckets, WebhookRateLimits } from "./RateLimits.ts"

/**
 * The executor the inbound formats post through: the execute bucket of the
 * webhook taken, then its guild's actor checks the token and writes the
 * message (with the `avatar_url` picture when there is one: AvatarOverrides).
 */
export const WebhookExecutorLive = Layer.effect(
  WebhookExecutor,
  Effect.gen(function*() {
    const calls = yield* WebhookCalls
    const limits = yield* WebhookRateLimits
    return WebhookExecutor.of({
      authenticate: (webhookId, token) =>
        Effect.andThen(limits.take(WebhookBuckets.execute, webhookId), Effect.asVoid(calls.webhook(webhookId, token))),
      execute: (webhookId, token, draft) =>
        Effect.andThen(
          limits.take(WebhookBuckets.execute, webhookId),
          calls.post(webhookId, token, {
            ...(draft.content === undefined ? {} : { content: draft.content }),
            ...(draft.embeds === undefined ? {} : { embeds: draft.embeds })
          }, { username: draft.username, avatarUrl: draft.avatar_url })
        )
    })
  })
).pipe(Layer.provide([WebhookCalls.layer, WebhookRateLimits.layer]))
