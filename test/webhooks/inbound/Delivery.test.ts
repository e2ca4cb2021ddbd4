import { assert, expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { expectError, TestApi } from "../../support/Api.ts"
import { createGuild } from "../../support/Cast.ts"

const fixtureJson = (name: string): unknown => JSON.parse(readFileSync(join(import.meta.dirname, "fixtures", name), "utf8"))

const CreatedWebhook = Schema.Struct({ id: Schema.String, token: Schema.String })
const Embed = Schema.Struct({
  title: Schema.optional(Schema.String),
  url: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  color: Schema.optional(Schema.Number),
  author: Schema.optional(Schema.Struct({ name: Schema.String })),
  fields: Schema.optional(Schema.Array(Schema.Struct({ name: Schema.String, value: Schema.String })))
})
const ListedMessage = Schema.Struct({
  id: Schema.String,
  webhook_id: Schema.optional(Schema.NullOr(Schema.String)),
  author: Schema.Struct({ id: Schema.String, username: Schema.String, bot: Schema.optional(Schema.Boolean) }),
  content: Schema.String,
  embeds: Schema.Array(Embed)
})
const Listed = Schema.Array(ListedMessage)

/**
 * What a client renders after a source-control push and an error-tracker event
 * reach a webhook over HTTP: the messages of the channel, read back as any
 * client reads them, carry the webhook as their author and the event as an embed.
 */
layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("inbound webhook deliveries", (it) => {
  it.effect("a push and an error-tracker issue become messages with the embeds a client renders", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { channelId } = yield* createGuild(owner.token, "Harbor")
      const created = yield* api.request("POST", `/channels/${channelId}/webhooks`, { token: owner.token, body: { name: "Harbor CI" } })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const webhook = Schema.decodeUnknownSync(CreatedWebhook)(created.body)
      const base = `/webhooks/${webhook.id}/${webhook.token}`

      const push = yield* api.request("POST", `${base}/scm`, { body: fixtureJson("scm-push.json"), headers: { "x-github-event": "push" } })
      assert.strictEqual(push.status, 204, JSON.stringify(push.body))
      const issue = yield* api.request("POST", `${base}/errors`, {
        body: fixtureJson("errors-issue-created.json"),
        headers: { "sentry-hook-resource": "issue" }
      })
      assert.strictEqual(issue.status, 204, JSON.stringify(issue.body))
      // An event the format does not render is accepted (senders retry on errors) and posts nothing.
      const ping = yield* api.request("POST", `${base}/scm`, { body: fixtureJson("scm-ping.json"), headers: { "x-github-event": "ping" } })
      assert.strictEqual(ping.status, 204, JSON.stringify(ping.body))
      // A wrong token is refused before anything is read as an event.
      expectError(
        yield* api.request("POST", `/webhooks/${webhook.id}/not-the-token/scm`, { body: fixtureJson("scm-push.json"), headers: { "x-github-event": "push" } }),
        404,
        "UNKNOWN_WEBHOOK"
      )

      const listed = yield* api.request("GET", `/channels/${channelId}/messages?limit=10`, { token: owner.token })
      assert.strictEqual(listed.status, 200, JSON.stringify(listed.body))
      const [errorMessage, pushMessage, ...older] = Schema.decodeUnknownSync(Listed)(listed.body)
      expect(older).toEqual([])
      for (const message of [pushMessage, errorMessage]) {
        expect(message?.webhook_id).toBe(webhook.id)
        expect(message?.author).toMatchObject({ id: webhook.id, username: "Harbor CI", bot: true })
        expect(message?.embeds).toHaveLength(1)
      }
      const pushEmbed = pushMessage?.embeds[0]
      expect(pushEmbed?.title).toBe("[harbor:main] 3 new commits")
      expect(pushEmbed?.url).toBe("https://github.com/octo-org/harbor/compare/9049f1265b7d...a1b2c3d4e5f6")
      expect(pushEmbed?.author?.name).toBe("mona")
      expect(pushEmbed?.description?.split("\n")).toHaveLength(3)
      expect(pushEmbed?.description).toContain("Add a lighthouse - Hubot")
      const errorEmbed = errorMessage?.embeds[0]
      expect(errorEmbed?.title).toMatch(/^\[front-end\] New issue: /)
      expect(errorEmbed?.color).toBe(0xe03e2f)
      expect(errorEmbed?.fields?.map((f) => f.name)).toEqual(["Level", "Events", "Users"])
    }))

  it.effect("a chat-tool message answers ok, a status-page event 204; bodies that are not the format are 400", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { channelId } = yield* createGuild(owner.token, "Status Hall")
      const created = yield* api.request("POST", `/channels/${channelId}/webhooks`, { token: owner.token, body: { name: "Ops" } })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const webhook = Schema.decodeUnknownSync(CreatedWebhook)(created.body)
      const base = `/webhooks/${webhook.id}/${webhook.token}`

      const chat = yield* api.request("POST", `${base}/chat`, { body: fixtureJson("chat-attachments.json") })
      assert.strictEqual(chat.status, 200, JSON.stringify(chat.body))
      expect(chat.body).toBe("ok")
      const status = yield* api.request("POST", `${base}/status`, { body: fixtureJson("status-incident-update.json") })
      assert.strictEqual(status.status, 204, JSON.stringify(status.body))
      const listed = yield* api.request("GET", `/channels/${channelId}/messages?limit=10`, { token: owner.token })
      const [statusMessage, chatMessage, ...older] = Schema.decodeUnknownSync(Listed)(listed.body)
      expect(older).toEqual([])
      expect(chatMessage?.webhook_id).toBe(webhook.id)
      expect(chatMessage?.embeds.length).toBeGreaterThan(0)
      expect(statusMessage?.webhook_id).toBe(webhook.id)
      expect(statusMessage?.embeds).toHaveLength(1)

      expectError(yield* api.request("POST", `${base}/chat`, { body: { text: 42 } }), 400, "INVALID_FORM_BODY")
      expectError(yield* api.request("POST", `${base}/scm`, { body: { action: "opened" }, headers: { "x-github-event": "issues" } }), 400, "INVALID_FORM_BODY")
      expectError(yield* api.request("POST", `/webhooks/not-a-snowflake/${webhook.token}/status`, { body: {} }), 400, "INVALID_FORM_BODY")
      const after = yield* api.request("GET", `/channels/${channelId}/messages?limit=10`, { token: owner.token })
      expect(Schema.decodeUnknownSync(Listed)(after.body)).toHaveLength(2)
    }))
})
