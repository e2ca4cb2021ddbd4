import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { createWebhook, deleteWebhook, updateWebhook } from "../../../shards/guild/operations/Webhooks.ts"
import { createWebhookMessage } from "../../../shards/guild/operations/WebhookMessages.ts"
import { deleteChannel } from "../../../shards/guild/operations/Channels.ts"
import type { WriteContext } from "../../../shards/guild/Definitions.ts"
import { createGuild, type GuildState } from "../../../shards/guild/State.ts"
import { CarriedId } from "../../../src/model/Ids.ts"
import { tokenHash } from "../../../src/platform/Crypto.ts"
import { defaultLimits } from "../../../src/model/Limits.ts"

const user = (id: string) => ({ id, username: `u${id}`, discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 })
const base = createGuild({ guildId: "100", channelId: "101", owner: user("1"), name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })
const context: WriteContext = { guildId: "100", actorId: "1", operationId: "5000", reason: null, limits: defaultLimits, now: Date.parse("2026-02-01T00:00:00Z") }
const hash = (token: string) => tokenHash(token).toString("hex")

const withWebhook = (state: GuildState, id: string, channelId = "101") =>
  Effect.runSync(createWebhook.decide(state, createWebhook.command.make({
    channelId: CarriedId.ChannelId.make(channelId),
    webhookId: CarriedId.WebhookId.make(id),
    tokenHash: hash(`token-${id}`),
    name: `hook ${id}`,
    avatar: null
  }), context)).next

const failureCode = <A, E>(exit: Exit.Exit<A, E>) => {
  assert.isTrue(Exit.isFailure(exit))
  return JSON.stringify(exit).match(/"code":"([A-Z_]+)"/)?.[1]
}

describe("webhook decisions", () => {
  it("creates a webhook: its view hides the token, an audit entry, WEBHOOKS_UPDATE", () => {
    const decision = Effect.runSync(createWebhook.decide(base, createWebhook.command.make({
      channelId: CarriedId.ChannelId.make("101"),
      webhookId: CarriedId.WebhookId.make("7"),
      tokenHash: hash("secret"),
      name: "CI",
      avatar: null
    }), context))
    expect(decision.reply).toMatchObject({ id: "7", guild_id: "100", channel_id: "101", name: "CI", avatar: null, token: "", user: { id: "1" } })
    assert.deepStrictEqual(decision.events, [{ type: "WEBHOOKS_UPDATE", data: { guild_id: "100", channel_id: "101" } }])
    expect(decision.audit).toMatchObject([{ actionType: 50, targetId: "7", options: { channel_id: "101" } }])
    assert.strictEqual(base.webhooks.size, 0)
  })

  it("refuses the 16th webhook of a channel", () => {
    let state = base
    for (let i = 0; i < 15; i++) state = withWebhook(state, String(200 + i))
    const exit = Effect.runSyncExit(createWebhook.decide(state, createWebhook.command.make({
      channelId: CarriedId.ChannelId.make("101"),
      webhookId: CarriedId.WebhookId.make("999"),
      tokenHash: hash("x"),
      name: "one more",
      avatar: null
    }), context))
    assert.strictEqual(failureCode(exit), "MAX_WEBHOOKS_PER_CHANNEL")
  })

  it("by token: a wrong token is an unknown webhook, and no change is audited", () => {
    const state = withWebhook(base, "7")
    const wrong = Effect.runSyncExit(deleteWebhook.decide(state, deleteWebhook.command.make({
      webhookId: CarriedId.WebhookId.make("7"),
      tokenHash: hash("nope")
    }), context))
    assert.strictEqual(failureCode(wrong), "UNKNOWN_WEBHOOK")
    const renamed = Effect.runSync(updateWebhook.decide(state, updateWebhook.command.make({
      webhookId: CarriedId.WebhookId.make("7"),
      tokenHash: hash("token-7"),
      patch: { name: "renamed", channelId: CarriedId.ChannelId.make("555") }
    }), context))
    expect(renamed.reply).toMatchObject({ name: "renamed", channel_id: "101" })
    assert.deepStrictEqual(renamed.audit, [])
  })

  it("a webhook's message is the webhook's; deleting the channel removes its webhooks", () => {
    const state = withWebhook(base, "7")
    const posted = Effect.runSync(createWebhookMessage.decide(state, createWebhookMessage.command.make({
      webhookId: CarriedId.WebhookId.make("7"),
      tokenHash: hash("token-7"),
      request: { content: "hello @everyone" },
      username: "Bot name"
    }), context))
    expect(posted.reply).toMatchObject({
      webhook_id: "7",
      author: { id: "7", username: "Bot name", discriminator: "0000", bot: true },
      mention_everyone: false
    })
    const gone = Effect.runSync(deleteChannel.decide(state, deleteChannel.command.make({ channelId: CarriedId.ChannelId.make("101") }), context))
    assert.strictEqual(gone.next.webhooks.size, 0)
  })
})
