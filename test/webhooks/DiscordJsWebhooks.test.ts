import { assert, expect, layer } from "@effect/vitest"
import { Client, Events, GatewayIntentBits, type Message, WebhookClient } from "discord.js"
import { Deferred, Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { TestApi } from "../support/Api.ts"
import { createGuild } from "../support/Cast.ts"
import { addBot } from "../gateway/Bots.ts"

const BOT_PERMISSIONS = Permission.VIEW_CHANNEL | Permission.SEND_MESSAGES | Permission.READ_MESSAGE_HISTORY |
  Permission.MANAGE_WEBHOOKS

/** Waits for `deferred`, failing the test with `what` after a while (discord.js swallows what it cannot read). */
const within = <A>(deferred: Deferred.Deferred<A>, what: string) =>
  Deferred.await(deferred).pipe(
    Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.die(new Error(`discord.js saw no ${what}`)) })
  )

/**
 * discord.js, unmodified, as integration authors use it: a bot makes a webhook
 * and lists its channel's webhooks; a `WebhookClient` holding only the id and
 * token posts, reads, edits and deletes its messages; the bot hears the post
 * as a webhook's message.
 */
layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("discord.js webhooks", (it) => {
  it.effect("a bot creates a webhook; a WebhookClient posts, edits and deletes; the bot hears a webhook message", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId, channelId } = yield* createGuild(owner.token, "Hook Hall")
      const bot = yield* addBot(owner.token, guildId, BOT_PERMISSIONS)
      const client = new Client({
        intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
        rest: { api: api.baseUrl, version: "1" },
        ws: { version: 1 }
      })
      const errors: Array<unknown> = []
      client.on(Events.Error, (error) => errors.push(error))
      const ready = yield* Deferred.make<void>()
      const heard = yield* Deferred.make<Message>()
      client.once(Events.ClientReady, () => Deferred.doneUnsafe(ready, Effect.void))
      client.on(Events.MessageCreate, (message) => {
        if (message.webhookId !== null) Deferred.doneUnsafe(heard, Effect.succeed(message))
      })
      yield* Effect.acquireRelease(
        Effect.promise(() => client.login(bot.token)),
        () => Effect.promise(() => client.destroy())
      )
      yield* within(ready, "ready")
      const channel = client.channels.cache.get(channelId)
      if (channel === undefined || !channel.isTextBased() || !("createWebhook" in channel)) return assert.fail("the guild's text channel")

      const webhook = yield* Effect.promise(() => channel.createWebhook({ name: "Deploys", reason: "CI notices" }))
      assert.strictEqual(webhook.name, "Deploys")
      assert.strictEqual(webhook.channelId, channelId)
      assert.isString(webhook.token)
      const listed = yield* Effect.promise(() => channel.fetchWebhooks())
      assert.deepStrictEqual([...listed.keys()], [webhook.id])
      const renamed = yield* Effect.promise(() => webhook.edit({ name: "Deploy notices" }))
      assert.strictEqual(renamed.name, "Deploy notices")

      const hook = new WebhookClient({ id: webhook.id, token: webhook.token ?? "" }, { rest: { api: api.baseUrl, version: "1" } })
      const sent = yield* Effect.promise(() =>
        hook.send({
          content: "Deployed v2.1.0",
          username: "Release Bot",
          embeds: [{ title: "harbor v2.1.0", description: "3 services updated", color: 0x2ecc71 }]
        })
      )
      assert.strictEqual(sent.webhook_id, webhook.id)
      assert.strictEqual(sent.author.username, "Release Bot")
      const message = yield* within(heard, "messageCreate from the webhook")
      assert.strictEqual(message.content, "Deployed v2.1.0")
      assert.strictEqual(message.webhookId, webhook.id)
      assert.strictEqual(message.embeds[0]?.title, "harbor v2.1.0")

      const fetched = yield* Effect.promise(() => hook.fetchMessage(sent.id))
      assert.strictEqual(fetched.content, "Deployed v2.1.0")
      const edited = yield* Effect.promise(() => hook.editMessage(sent.id, { content: "Deployed v2.1.1" }))
      assert.strictEqual(edited.content, "Deployed v2.1.1")
      yield* Effect.promise(() => hook.deleteMessage(sent.id))
      const gone = yield* Effect.promise(() => hook.fetchMessage(sent.id).then(() => "found", (e: unknown) => String(e)))
      expect(gone).not.toBe("found")
      hook.destroy()

      yield* Effect.promise(() => webhook.delete())
      assert.strictEqual((yield* Effect.promise(() => channel.fetchWebhooks())).size, 0)
      assert.deepStrictEqual(errors, [])
    }))
})
