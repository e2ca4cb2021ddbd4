import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { type WebhookDraft, WebhookExecutor } from "../Executor.ts"
import { InboundWebhooksOnlyApi } from "./Api.ts"
import { chatDraft } from "./Chat.ts"
import { ERRORS_RESOURCE_HEADER, errorsDraft } from "./Errors.ts"
import { SCM_EVENT_HEADER, scmDraft } from "./Scm.ts"
import { statusDraft } from "./Status.ts"

/**
 * Each format's event rendered and posted through the webhook. An event a
 * format does not tell of is still authenticated, so a wrong token is refused
 * either way, and answered with success, since senders retry (and eventually
 * disable) a webhook that answers errors.
 */
const InboundWebhooksHandlers = HttpApiBuilder.group(InboundWebhooksOnlyApi, "inboundWebhooks", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const executor = yield* WebhookExecutor
    const post = (params: { readonly webhook_id: string; readonly token: string }, draft: WebhookDraft | null) =>
      draft === null
        ? executor.authenticate(params.webhook_id, params.token)
        : Effect.asVoid(executor.execute(params.webhook_id, params.token, draft))
    return handlers
      .handle("scm", ({ params, headers, payload }) => post(params, scmDraft(headers[SCM_EVENT_HEADER] ?? "", payload)))
      .handle("errors", ({ params, headers, payload }) => post(params, errorsDraft(headers[ERRORS_RESOURCE_HEADER], payload)))
      .handle("chat", ({ params, payload }) => Effect.as(post(params, chatDraft(payload)), "ok"))
      .handle("status", ({ params, payload }) => post(params, statusDraft(payload)))
  })))

/** The inbound format routes; the application provides their `WebhookExecutor`. */
export const InboundWebhooksLive = perRequestMiddlewaresOnly(InboundWebhooksHandlers)
