import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { expectError, field, type Reply, TestApi } from "../support/Api.ts"
import { cast, newMember, reload } from "../support/Cast.ts"
import { checkResponseShape } from "../support/ResponseShapes.ts"
import { dataOf, identified, nextMatching } from "../gateway/Client.ts"
import { BOUNDARY, multipartBody, type Part, payload } from "../messages/Multipart.ts"
import { createWebhook, execute, messageIdOf } from "./Support.ts"

/** A multipart execute of `parts`, waiting for the message. */
const executeMultipart = (webhook: { readonly id: string; readonly token: string }, parts: ReadonlyArray<Part>) =>
  Effect.flatMap(TestApi, (api) =>
    Effect.promise(async (): Promise<Reply> => {
      const path = `/webhooks/${webhook.id}/${webhook.token}`
      const response = await fetch(`${api.baseUrl}${path}?wait=true`, {
        method: "POST",
        headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
        body: multipartBody(parts)
      })
      const text = await response.text()
      const body: unknown = text === "" ? undefined : JSON.parse(text)
      checkResponseShape("POST", path, response.status, body)
      return { status: response.status, headers: response.headers, body }
    }))

layer(TestApi.layer, { timeout: 180_000, excludeTestServices: true })("posting as a webhook", (it) => {
  it.effect("executes with and without wait, with overrides and embeds; the message is the webhook's, everywhere", () =>
    Effect.gen(function*() {
      const { api, owner, guildId, channelId } = yield* cast()
      const { client } = yield* identified(owner.token)
      const webhook = yield* createWebhook(owner.token, channelId, "Builds")
      const update = yield* nextMatching(client, "WEBHOOKS_UPDATE", () => true)
      assert.deepStrictEqual(dataOf(update), { guild_id: guildId, channel_id: channelId })

      const posted = yield* execute(webhook, {
        content: "build <@" + owner.userId + "> passed @everyone",
        username: "CI bot",
        avatar_url: "https://example.com/ci.png",
        embeds: [{ title: "Build 12", color: 65280 }],
        tts: false
      })
      const id = messageIdOf(posted)
      expect(posted.body).toMatchObject({
        channel_id: channelId,
        webhook_id: webhook.id,
        author: { id: webhook.id, username: "CI bot", discriminator: "0000", bot: true },
        embeds: [{ type: "rich", title: "Build 12", color: 65280 }],
        // A webhook pings nobody.
        mentions: [],
        mention_everyone: false
      })
      const created = yield* nextMatching(client, "MESSAGE_CREATE", (d) => (d as { id?: string }).id === id)
      expect(dataOf(created)).toMatchObject({ webhook_id: webhook.id, author: { id: webhook.id }, guild_id: guildId })

      // Without ?wait=true the production service answers 204 (the reference lists only the 200 of a wait):
      // fetched directly, as the shape check of test/support holds every answer to the reference's status.
      const quiet = yield* Effect.promise(() =>
        fetch(`${api.baseUrl}/webhooks/${webhook.id}/${webhook.token}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ content: "no wait" })
        }))
      assert.strictEqual(quiet.status, 204)
      assert.strictEqual(yield* Effect.promise(() => quiet.text()), "")

      const listed = yield* api.request("GET", `/channels/${channelId}/messages`, { token: owner.token })
      expect(listed.body).toMatchObject([
        { content: "no wait", webhook_id: webhook.id, author: { username: "Builds" } },
        { id, webhook_id: webhook.id, author: { username: "CI bot" } }
      ])

      // Reloaded from Postgres, the messages are still the webhook's.
      yield* reload(guildId)
      const again = yield* api.request("GET", `/channels/${channelId}/messages/${id}`, { token: owner.token })
      expect(again.body).toMatchObject({ id, webhook_id: webhook.id, author: { id: webhook.id, username: "CI bot", bot: true } })
      const afterReload = yield* api.request("GET", `/channels/${channelId}/messages`, { token: owner.token })
      assert.deepStrictEqual(afterReload.body, listed.body)

      // Search: author_type webhook finds them; user and bot do not.
      const search = (body: Record<string, unknown>) => api.request("POST", "/search/messages", { token: owner.token, body })
      yield* execute(webhook, { content: "needle from a hook" })
      yield* api.request("POST", `/channels/${channelId}/messages`, { token: owner.token, body: { content: "needle from a person" } })
      const byType = (type: string) =>
        Effect.map(search({ content: "needle", author_type: [type] }), (reply) => {
          assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
          return (reply.body as { messages: ReadonlyArray<{ content: string }> }).messages.map((m) => m.content)
        })
      assert.deepStrictEqual(yield* byType("webhook"), ["needle from a hook"])
      assert.deepStrictEqual(yield* byType("user"), ["needle from a person"])
      assert.deepStrictEqual(yield* byType("bot"), [])
    }))

  it.effect("a multipart execute stores its file; bad and empty executes are 400; a wrong token posts nothing", () =>
    Effect.gen(function*() {
      const { api, owner, channelId } = yield* cast()
      const webhook = yield* createWebhook(owner.token, channelId)
      const withFile = yield* executeMultipart(webhook, [
        payload({ content: "the log", username: "Uploader", attachments: [{ id: 0, description: "build log" }] }),
        { name: "files[0]", filename: "build.txt", data: Buffer.from("all green"), type: "text/plain" }
      ])
      assert.strictEqual(withFile.status, 200, JSON.stringify(withFile.body))
      expect(withFile.body).toMatchObject({
        author: { username: "Uploader" },
        webhook_id: webhook.id,
        attachments: [{ filename: "build.txt", description: "build log", size: 9 }]
      })
      const badOverride = yield* executeMultipart(webhook, [payload({ content: "x", username: "" })])
      expectError(badOverride, 400, "INVALID_FORM_BODY")

      for (const body of [{}, { content: "" }, { embeds: [] }]) {
        expectError(yield* execute(webhook, body), 400, "CANNOT_SEND_EMPTY_MESSAGE")
      }
      for (const body of [{ content: 5 }, { content: "x", username: "" }, { content: "x", avatar_url: "ftp://x" }, { content: "a\u0000b" }, { content: "x".repeat(2001) }]) {
        expectError(yield* execute(webhook, body), 400, "INVALID_FORM_BODY")
      }
      expectError(yield* execute({ id: webhook.id, token: "wrong" }, { content: "hi" }), 404, "UNKNOWN_WEBHOOK")
      expectError(yield* executeMultipart({ id: webhook.id, token: "wrong" }, [payload({ content: "hi" })]), 404, "UNKNOWN_WEBHOOK")
      const wrongWithFile = yield* executeMultipart({ id: webhook.id, token: "wrong" }, [
        payload({ content: "hi", attachments: [{ id: 0 }] }),
        { name: "files[0]", filename: "a.txt", data: Buffer.from("a"), type: "text/plain" }
      ])
      expectError(wrongWithFile, 404, "UNKNOWN_WEBHOOK")
      const messages = yield* api.request("GET", `/channels/${channelId}/messages`, { token: owner.token })
      assert.strictEqual((messages.body as ReadonlyArray<unknown>).length, 1)
    }))

  it.effect("the webhook reads, edits and deletes its own messages; not another's", () =>
    Effect.gen(function*() {
      const { api, owner, guildId, channelId } = yield* cast()
      const webhook = yield* createWebhook(owner.token, channelId, "First")
      const other = yield* createWebhook(owner.token, channelId, "Second")
      const id = messageIdOf(yield* execute(webhook, { content: "draft" }))
      const othersId = messageIdOf(yield* execute(other, { content: "not yours" }))
      const ownPath = `/webhooks/${webhook.id}/${webhook.token}/messages/${id}`

      const read = yield* api.request("GET", ownPath)
      expect(read.body).toMatchObject({ id, content: "draft", webhook_id: webhook.id })
      const edited = yield* api.request("PATCH", ownPath, { body: { content: "final", embeds: [{ description: "details" }] } })
      assert.strictEqual(edited.status, 200, JSON.stringify(edited.body))
      expect(edited.body).toMatchObject({ id, content: "final", embeds: [{ description: "details" }], author: { id: webhook.id } })
      assert.isString(field(edited.body, "edited_timestamp"))
      expectError(yield* api.request("PATCH", ownPath, { body: { content: 7 } }), 400, "INVALID_FORM_BODY")

      const othersPath = `/webhooks/${webhook.id}/${webhook.token}/messages/${othersId}`
      expectError(yield* api.request("GET", othersPath), 404, "UNKNOWN_MESSAGE")
      expectError(yield* api.request("PATCH", othersPath, { body: { content: "mine now" } }), 404, "UNKNOWN_MESSAGE")
      expectError(yield* api.request("DELETE", othersPath), 404, "UNKNOWN_MESSAGE")
      expectError(yield* api.request("GET", `/webhooks/${webhook.id}/wrong/messages/${id}`), 404, "UNKNOWN_WEBHOOK")

      // Read back from Postgres by a reloaded actor: still the webhook's.
      yield* reload(guildId)
      const stillThere = yield* api.request("GET", ownPath)
      expect(stillThere.body).toMatchObject({ id, content: "final" })

      assert.strictEqual((yield* api.request("DELETE", ownPath)).status, 204)
      expectError(yield* api.request("GET", ownPath), 404, "UNKNOWN_MESSAGE")
      const left = yield* api.request("GET", `/channels/${channelId}/messages`, { token: owner.token })
      expect(left.body).toMatchObject([{ id: othersId }])
      // A reply to a webhook's message pings no one: a webhook is no user.
      const reply = yield* api.request("POST", `/channels/${channelId}/messages`, {
        token: owner.token,
        body: { content: "thanks", message_reference: { message_id: othersId } }
      })
      expect(reply.body).toMatchObject({ mentions: [], referenced_message: { id: othersId, webhook_id: other.id } })
      // A moderator may still remove a webhook's message.
      const moderator = yield* newMember(guildId, Permission.VIEW_CHANNEL | Permission.MANAGE_MESSAGES | Permission.READ_MESSAGE_HISTORY)
      assert.strictEqual((yield* api.request("DELETE", `/channels/${channelId}/messages/${othersId}`, { token: moderator.token })).status, 204)
    }))
})
