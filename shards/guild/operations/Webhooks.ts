import { Effect, Schema } from "effect"
import { ChannelType } from "../../../src/model/Channels.ts"
import { BadRequest, type Forbidden, invalidField, type NotFound, unknown } from "../../../src/model/Errors.ts"
import { CarriedId } from "../../../src/model/Ids.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import {
  MAX_WEBHOOKS_PER_CHANNEL,
  MAX_WEBHOOKS_PER_GUILD,
  WebhookResponse,
  WebhookTokenResponse
} from "../../../src/model/Webhooks.ts"
import { requirePermission } from "../Access.ts"
import { managedChannel } from "../channels/ChannelAccess.ts"
import type { GuildChannel } from "../channels/GuildChannel.ts"
import { type AuditEntry, type GuildEvent, read, write } from "../Definitions.ts"
import { DELETED_CREATOR } from "../expressions/ExpressionRows.ts"
import type { GuildState } from "../State.ts"
import { type GuildWebhook, tokenMatches, webhookTokenView, webhookView } from "../webhooks/GuildWebhook.ts"
import { deleteWebhook as deleteRow, insertWebhook, updateWebhook as updateRow } from "../webhooks/WebhookRows.ts"

/** Audit log action types (part C, AuditLogActionType). */
const WEBHOOK_CREATE = 50
const WEBHOOK_UPDATE = 51
const WEBHOOK_DELETE = 52

/**
 * A webhook's token is checked here, against the hash the actor keeps: the
 * caller hands in the SHA-256 of what it was given (`tokenHash`, hex). A
 * wrong token and an unknown webhook answer alike: 404 UNKNOWN_WEBHOOK.
 */
const TokenFields = { webhookId: CarriedId.WebhookId, tokenHash: Schema.String }

export const unknownWebhook = () => unknown("WEBHOOK")

const webhookOf = (state: GuildState, webhookId: string): Effect.Effect<GuildWebhook, NotFound> => {
  const webhook = state.webhooks.get(webhookId)
  return webhook === undefined ? Effect.fail(unknownWebhook()) : Effect.succeed(webhook)
}

/** The webhook whose token hashes to `tokenHash`. */
export const webhookByToken = (state: GuildState, webhookId: string, tokenHash: string): Effect.Effect<GuildWebhook, NotFound> => {
  const webhook = state.webhooks.get(webhookId)
  return webhook !== undefined && tokenMatches(webhook, tokenHash) ? Effect.succeed(webhook) : Effect.fail(unknownWebhook())
}

/** A text channel in which `userId` holds MANAGE_WEBHOOKS at `now`. */
const webhookChannel = (
  state: GuildState,
  userId: string,
  channelId: string,
  now: number
): Effect.Effect<GuildChannel, BadRequest | Forbidden | NotFound> =>
  Effect.flatMap(managedChannel(state, userId, channelId, Permission.MANAGE_WEBHOOKS, now), (channel) =>
    channel.type === ChannelType.TEXT
      ? Effect.succeed(channel)
      : Effect.fail(invalidField("channel_id", "INVALID_CHANNEL_TYPE", "Webhooks post in text channels")))

/** The webhook `webhookId`, which `userId` may manage (MANAGE_WEBHOOKS in its channel). */
const managedWebhook = (state: GuildState, userId: string, webhookId: string, now: number) =>
  Effect.flatMap(webhookOf(state, webhookId), (webhook) =>
    Effect.as(managedChannel(state, userId, webhook.channel_id, Permission.MANAGE_WEBHOOKS, now), webhook))

const countIn = (state: GuildState, channelId: string) =>
  [...state.webhooks.values()].filter((webhook) => webhook.channel_id === channelId).length

const channelFull = () =>
  new BadRequest({ code: "MAX_WEBHOOKS_PER_CHANNEL", message: `A channel has at most ${MAX_WEBHOOKS_PER_CHANNEL} webhooks` })

const withWebhook = (state: GuildState, id: string, webhook: GuildWebhook | undefined): GuildState => {
  const webhooks = new Map(state.webhooks)
  if (webhook === undefined) webhooks.delete(id)
  else webhooks.set(id, webhook)
  return { ...state, webhooks }
}

/** WEBHOOKS_UPDATE: the channel's webhooks changed (clients fetch them again). */
const webhooksUpdate = (guildId: string, channelId: string): GuildEvent => ({
  type: "WEBHOOKS_UPDATE",
  data: { guild_id: guildId, channel_id: channelId }
})

/** What the audit log shows of a webhook, as its entries' changes. */
const audited = (webhook: GuildWebhook) => ({
  channel_id: webhook.channel_id,
  name: webhook.name,
  avatar_hash: webhook.avatar,
  type: 1
})

const auditEntry = (actionType: number, before: GuildWebhook | undefined, after: GuildWebhook | undefined): AuditEntry => {
  const old: Record<string, unknown> = before === undefined ? {} : audited(before)
  const now: Record<string, unknown> = after === undefined ? {} : audited(after)
  const keys = [...new Set([...Object.keys(old), ...Object.keys(now)])]
  const changes = keys.flatMap((key) => {
    const oldValue = old[key] ?? null
    const newValue = now[key] ?? null
    if (oldValue === newValue) return []
    return [{ key, ...(oldValue === null ? {} : { old_value: oldValue }), ...(newValue === null ? {} : { new_value: newValue }) }]
  })
  const webhook = after ?? before
  return {
    actionType,
    targetId: webhook?.id ?? null,
    changes,
    ...(webhook === undefined ? {} : { options: { channel_id: webhook.channel_id } })
  }
}

/** POST /channels/{id}/webhooks: MANAGE_WEBHOOKS there; 15 per channel, 1000 per guild. The token's hash comes in. */
export const createWebhook = write(
  "CreateWebhook",
  {
    channelId: CarriedId.ChannelId,
    webhookId: CarriedId.WebhookId,
    tokenHash: Schema.String,
    name: Schema.String,
    /** Media-store hash of the picture, stored already. */
    avatar: Schema.NullOr(Schema.String)
  },
  WebhookResponse,
  (state, { channelId, webhookId, tokenHash, name, avatar }, context) =>
    Effect.gen(function*() {
      yield* webhookChannel(state, context.actorId, channelId, context.now)
      if (state.webhooks.size >= MAX_WEBHOOKS_PER_GUILD) {
        return yield* new BadRequest({ code: "MAX_WEBHOOKS_PER_GUILD", message: `A guild has at most ${MAX_WEBHOOKS_PER_GUILD} webhooks` })
      }
      if (countIn(state, channelId) >= MAX_WEBHOOKS_PER_CHANNEL) return yield* channelFull()
      const webhook: GuildWebhook = {
        id: webhookId,
        channel_id: channelId,
        name,
        avatar,
        tokenHash,
        creator: state.members.get(context.actorId)?.user ?? DELETED_CREATOR
      }
      return {
        next: withWebhook(state, webhookId, webhook),
        reply: webhookView(context.guildId, webhook),
        persist: insertWebhook(context.guildId, webhook),
        audit: [auditEntry(WEBHOOK_CREATE, undefined, webhook)],
        events: [webhooksUpdate(context.guildId, channelId)]
      }
    })
)

const WebhookPatch = Schema.Struct({
  name: Schema.optional(Schema.String),
  /** A stored picture's hash, or null to remove it; absent: unchanged. */
  avatar: Schema.optional(Schema.NullOr(Schema.String)),
  channelId: Schema.optional(CarriedId.ChannelId)
})

/**
 * PATCH /webhooks/{id} (a user with MANAGE_WEBHOOKS, audited; it may move the
 * webhook to another text channel of the guild where they also hold it) and
 * PATCH /webhooks/{id}/{token} (`tokenHash` given: name and picture only).
 */
export const updateWebhook = write(
  "UpdateWebhook",
  { webhookId: CarriedId.WebhookId, tokenHash: Schema.optional(Schema.String), patch: WebhookPatch },
  WebhookResponse,
  (state, { webhookId, tokenHash, patch }, context) =>
    Effect.gen(function*() {
      const byToken = tokenHash !== undefined
      const before = byToken
        ? yield* webhookByToken(state, webhookId, tokenHash)
        : yield* managedWebhook(state, context.actorId, webhookId, context.now)
      const target = byToken ? undefined : patch.channelId
      const moves = target !== undefined && target !== before.channel_id
      if (moves) {
        yield* webhookChannel(state, context.actorId, target, context.now)
        if (countIn(state, target) >= MAX_WEBHOOKS_PER_CHANNEL) return yield* channelFull()
      }
      const after: GuildWebhook = {
        ...before,
        ...(patch.name === undefined ? {} : { name: patch.name }),
        ...(patch.avatar === undefined ? {} : { avatar: patch.avatar }),
        ...(moves ? { channel_id: target } : {})
      }
      return {
        next: withWebhook(state, webhookId, after),
        reply: webhookView(context.guildId, after),
        persist: updateRow(after),
        audit: byToken ? [] : [auditEntry(WEBHOOK_UPDATE, before, after)],
        events: [
          webhooksUpdate(context.guildId, before.channel_id),
          ...(moves ? [webhooksUpdate(context.guildId, after.channel_id)] : [])
        ]
      }
    })
)

/** DELETE /webhooks/{id} (MANAGE_WEBHOOKS, audited) and DELETE /webhooks/{id}/{token}. */
export const deleteWebhook = write(
  "DeleteWebhook",
  { webhookId: CarriedId.WebhookId, tokenHash: Schema.optional(Schema.String) },
  Schema.Null,
  (state, { webhookId, tokenHash }, context) =>
    Effect.gen(function*() {
      const byToken = tokenHash !== undefined
      const webhook = byToken
        ? yield* webhookByToken(state, webhookId, tokenHash)
        : yield* managedWebhook(state, context.actorId, webhookId, context.now)
      return {
        next: withWebhook(state, webhookId, undefined),
        reply: null,
        persist: deleteRow(webhookId),
        audit: byToken ? [] : [auditEntry(WEBHOOK_DELETE, webhook, undefined)],
        events: [webhooksUpdate(context.guildId, webhook.channel_id)]
      }
    })
)

const byId = (a: GuildWebhook, b: GuildWebhook) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1)

/** GET /channels/{id}/webhooks: MANAGE_WEBHOOKS there. */
export const listChannelWebhooks = read(
  "ListChannelWebhooks",
  { channelId: CarriedId.ChannelId, now: Schema.Number },
  Schema.Array(WebhookResponse),
  (state, { channelId, now }, viewerId) =>
    Effect.map(managedChannel(state, viewerId, channelId, Permission.MANAGE_WEBHOOKS, now), () =>
      [...state.webhooks.values()].filter((w) => w.channel_id === channelId).sort(byId).map((w) => webhookView(state.guild.id, w)))
)

/** GET /guilds/{id}/webhooks: MANAGE_WEBHOOKS in the guild. */
export const listGuildWebhooks = read("ListGuildWebhooks", { now: Schema.Number }, Schema.Array(WebhookResponse), (state, { now }, viewerId) =>
  Effect.map(requirePermission(state, viewerId, Permission.MANAGE_WEBHOOKS, now), () =>
    [...state.webhooks.values()].sort(byId).map((w) => webhookView(state.guild.id, w))))

/** GET /webhooks/{id}: MANAGE_WEBHOOKS in its channel. */
export const getWebhook = read(
  "GetWebhook",
  { webhookId: CarriedId.WebhookId, now: Schema.Number },
  WebhookResponse,
  (state, { webhookId, now }, viewerId) =>
    Effect.map(managedWebhook(state, viewerId, webhookId, now), (w) => webhookView(state.guild.id, w))
)

/** GET /webhooks/{id}/{token}, and the check of every by-token route: the webhook, its token field empty (the caller fills in what it presented). */
export const getWebhookByToken = read("GetWebhookByToken", TokenFields, WebhookTokenResponse, (state, { webhookId, tokenHash }) =>
  Effect.map(webhookByToken(state, webhookId, tokenHash), (w) => webhookTokenView(state.guild.id, w, "")))

export const webhooksWrites = [createWebhook, updateWebhook, deleteWebhook] as const
export const webhooksReads = [listChannelWebhooks, listGuildWebhooks, getWebhook, getWebhookByToken] as const
