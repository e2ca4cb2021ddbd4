import { HttpApi, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Schema } from "effect"
import { ApiErrors } from "../../model/Errors.ts"
import { Snowflake } from "../../model/Ids.ts"
import { ChatWebhookRequest } from "./Chat.ts"
import { ERRORS_RESOURCE_HEADER, ErrorsWebhook } from "./Errors.ts"
import { SCM_EVENT_HEADER, ScmWebhook } from "./Scm.ts"
import { StatusWebhook } from "./Status.ts"

const WebhookPath = { webhook_id: Snowflake, token: Schema.String }

/**
 * A webhook's inbound formats: events of outside services, posted by their
 * own senders, rendered as the webhook's messages. No credentials but the
 * webhook's token; the webhook's rate limit is taken by the executor.
 * Source control and error tracking answer 204, the chat format answers
 * `"ok"` as its senders expect, the status page 204.
 */
export class InboundWebhooksApi extends HttpApiGroup.make("inboundWebhooks").add(
  HttpApiEndpoint.post("scm", "/webhooks/:webhook_id/:token/scm", {
    params: WebhookPath,
    headers: { [SCM_EVENT_HEADER]: Schema.optional(Schema.String) },
    payload: ScmWebhook,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("errors", "/webhooks/:webhook_id/:token/errors", {
    params: WebhookPath,
    headers: { [ERRORS_RESOURCE_HEADER]: Schema.optional(Schema.String) },
    payload: ErrorsWebhook,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("chat", "/webhooks/:webhook_id/:token/chat", {
    params: WebhookPath,
    payload: ChatWebhookRequest,
    success: Schema.String,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("status", "/webhooks/:webhook_id/:token/status", {
    params: WebhookPath,
    payload: StatusWebhook,
    error: ApiErrors
  })
) {}

/**
 * The group on its own, under the application API's name: its handlers
 * (Http.ts) are built against it, and serve unchanged once the group is added
 * to the application's API (src/http/Api.ts), which looks handlers up by API
 * name and group name.
 */
export class InboundWebhooksOnlyApi extends HttpApi.make("guildhall").add(InboundWebhooksApi) {}
