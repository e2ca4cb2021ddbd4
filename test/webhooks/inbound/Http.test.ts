import { NodeHttpServer } from "@effect/platform-node"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { HttpRouter, type HttpServerRequest, type HttpServerResponse } from "effect/http"
import type { unhandled } from "effect/Types"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { toErrorResponse } from "../../../src/http/ErrorResponses.ts"
import { NotFound } from "../../../src/model/Errors.ts"
import { MessageResponse } from "../../../src/model/Messages.ts"
import { type WebhookDraft, WebhookExecutor } from "../../../src/webhooks/Executor.ts"
import { InboundWebhooksOnlyApi } from "../../../src/webhooks/inbound/Api.ts"
import { InboundWebhooksLive } from "../../../src/webhooks/inbound/Http.ts"

/*
 * The routes' wiring, in process with a recording executor: headers read,
 * bodies decoded (400 with the error object), drafts posted, ignored events
 * authenticated. The executor's own behaviour (tokens, rate limits, posting)
 * is tested with it; the routes over the real server once both are wired.
 */

const TOKEN = "good-token"
const calls: Array<{ readonly kind: "execute" | "authenticate"; readonly webhookId: string; readonly draft?: WebhookDraft }> = []
const unknownWebhook = () => new NotFound({ code: "UNKNOWN_WEBHOOK", message: "Unknown webhook" })

const posted = Schema.decodeUnknownSync(MessageResponse)({
  id: "3",
  channel_id: "2",
  author: { id: "1", username: "hook", discriminator: "0000", global_name: null, avatar: null, avatar_color: null, flags: 0, bot: true },
  type: 0,
  flags: 0,
  content: "",
  timestamp: "2024-05-20T10:00:00.000Z",
  edited_timestamp: null,
  pinned: false,
  mention_everyone: false,
  tts: false,
  mentions: [],
  mention_roles: [],
  embeds: [],
  attachments: []
})

const RecordingExecutor = Layer.succeed(WebhookExecutor, {
  authenticate: (webhookId, token) =>
    token === TOKEN ? Effect.sync(() => void calls.push({ kind: "authenticate", webhookId })) : Effect.fail(unknownWebhook()),
  execute: (webhookId, token, draft) =>
    token === TOKEN ? Effect.sync(() => (calls.push({ kind: "execute", webhookId, draft }), posted)) : Effect.fail(unknownWebhook())
})

/** What the server's request middleware does for every route: failures as the error object. */
const errorObjects = HttpRouter.middleware<{ handles: unknown }>()(
  (effect): Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled, HttpServerRequest.HttpServerRequest> =>
    Effect.catchCause(effect, (cause) => toErrorResponse(cause, "test")),
  { global: true }
)

const { handler, dispose } = HttpRouter.toWebHandler(
  Layer.mergeAll(HttpApiBuilder.layer(InboundWebhooksOnlyApi), errorObjects).pipe(
    Layer.provide(InboundWebhooksLive),
    Layer.provide(RecordingExecutor),
    Layer.provide(NodeHttpServer.layerHttpServices)
  ),
  { disableLogger: true }
)
afterAll(() => dispose())

const fixtureText = (name: string) => readFileSync(join(import.meta.dirname, "fixtures", name), "utf8")

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    calls.length = 0
    const response = await handler(
      new Request(`http://localhost/webhooks/11/${path}`, { method: "POST", body, headers: { "content-type": "application/json", ...headers } })
    )
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
  })

describe("inbound webhook routes", () => {
  it.effect("scm: the event header decides; a rendered event is posted, an ignored one authenticated, both 204", () =>
    Effect.gen(function*() {
      const pushed = yield* post(`${TOKEN}/scm`, fixtureText("scm-push.json"), { "X-GitHub-Event": "push" })
      expect(pushed.status).toBe(204)
      expect(calls.map((c) => [c.kind, c.webhookId, c.draft?.embeds?.[0]?.title])).toEqual([["execute", "11", "[harbor:main] 3 new commits"]])

      const pinged = yield* post(`${TOKEN}/scm`, fixtureText("scm-ping.json"), { "X-GitHub-Event": "ping" })
      expect(pinged.status).toBe(204)
      expect(calls).toEqual([{ kind: "authenticate", webhookId: "11" }])

      const unnamed = yield* post(`${TOKEN}/scm`, fixtureText("scm-push.json"))
      expect(unnamed.status).toBe(204)
      expect(calls.map((c) => c.kind)).toEqual(["authenticate"])
    }))

  it.effect("a wrong token is refused for rendered and ignored events alike", () =>
    Effect.gen(function*() {
      const rendered = yield* post("wrong/scm", fixtureText("scm-push.json"), { "X-GitHub-Event": "push" })
      expect(rendered).toEqual({ status: 404, body: { code: "UNKNOWN_WEBHOOK", message: "Unknown webhook" } })
      const ignored = yield* post("wrong/scm", fixtureText("scm-ping.json"), { "X-GitHub-Event": "ping" })
      expect(ignored.status).toBe(404)
      expect(calls).toEqual([])
    }))

  it.effect("a body that does not decode is a 400 with the error object, and nothing is called", () =>
    Effect.gen(function*() {
      const noSender = yield* post(`${TOKEN}/scm`, JSON.stringify({ ref: "refs/heads/main" }), { "X-GitHub-Event": "push" })
      expect(noSender.status).toBe(400)
      expect(noSender.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "sender" }] })
      const badChat = yield* post(`${TOKEN}/chat`, JSON.stringify({ attachments: "none" }))
      expect(badChat.status).toBe(400)
      expect(badChat.body).toMatchObject({ code: "INVALID_FORM_BODY" })
      const badSnowflake = yield* Effect.promise(() =>
        handler(new Request(`http://localhost/webhooks/abc/${TOKEN}/status`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } }))
      )
      expect(badSnowflake.status).toBe(400)
      expect(calls).toEqual([])
    }))

  it.effect("errors: the resource header decides; chat answers \"ok\"; status posts its event", () =>
    Effect.gen(function*() {
      const created = yield* post(`${TOKEN}/errors`, fixtureText("errors-issue-created.json"), { "Sentry-Hook-Resource": "issue" })
      expect(created.status).toBe(204)
      expect(calls.map((c) => c.draft?.embeds?.[0]?.footer?.text)).toEqual(["FRONT-END-9"])
      const installation = yield* post(`${TOKEN}/errors`, fixtureText("errors-issue-created.json"), { "Sentry-Hook-Resource": "installation" })
      expect(installation.status).toBe(204)
      expect(calls.map((c) => c.kind)).toEqual(["authenticate"])

      const chat = yield* post(`${TOKEN}/chat`, fixtureText("chat-attachments.json"))
      expect(chat).toEqual({ status: 200, body: "ok" })
      expect(calls.map((c) => [c.kind, c.draft?.username, c.draft?.embeds?.length])).toEqual([["execute", "Deploy Bot", 3]])

      const status = yield* post(`${TOKEN}/status`, fixtureText("status-component-update.json"))
      expect(status.status).toBe(204)
      expect(calls.map((c) => c.draft?.embeds?.[0]?.title)).toEqual(["Media uploads is now Major Outage"])
    }))
})
