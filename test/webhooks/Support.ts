import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { field, type Reply, TestApi } from "../support/Api.ts"

export interface Webhook {
  readonly id: string
  readonly token: string
  readonly channel_id: string
  readonly guild_id: string
  readonly name: string
  readonly avatar: string | null
}

export const webhookOf = (reply: Reply): Webhook => {
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  const body = reply.body as Webhook
  assert.isString(body.id)
  return body
}

/** A new webhook in `channelId`, made by `token`'s user; its create answer (which alone shows the token). */
export const createWebhook = (token: string, channelId: string, name = "Deploys", extra: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    return webhookOf(yield* api.request("POST", `/channels/${channelId}/webhooks`, { token, body: { name, ...extra } }))
  })

/** POSTs as the webhook, waiting for the message. */
export const execute = (webhook: Pick<Webhook, "id" | "token">, body: unknown) =>
  Effect.flatMap(TestApi, (api) => api.request("POST", `/webhooks/${webhook.id}/${webhook.token}?wait=true`, { body }))

export const messageIdOf = (reply: Reply) => {
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return field(reply.body, "id")
}
