import type { UserPartialResponse } from "../../../src/model/Users.ts"
import type { WebhookResponse, WebhookTokenResponse } from "../../../src/model/Webhooks.ts"
import { sameBytes } from "../../../src/platform/Crypto.ts"

/** A webhook as the guild actor keeps it: never its token, only the token's SHA-256. */
export interface GuildWebhook {
  readonly id: string
  readonly channel_id: string
  readonly name: string
  /** Media-store hash of its picture. */
  readonly avatar: string | null
  /** Hex SHA-256 of the token. */
  readonly tokenHash: string
  readonly creator: UserPartialResponse
}

/** As the user-authenticated routes show it: the token is not kept, so it is "" (discord.js reads that as none). */
export const webhookView = (guildId: string, webhook: GuildWebhook): WebhookResponse => ({
  ...webhookTokenView(guildId, webhook, ""),
  user: webhook.creator
})

/** As the by-token routes show it, with the token the caller presented. */
export const webhookTokenView = (guildId: string, webhook: GuildWebhook, token: string): WebhookTokenResponse => ({
  id: webhook.id,
  guild_id: guildId,
  channel_id: webhook.channel_id,
  name: webhook.name,
  avatar: webhook.avatar,
  token
})

/** Whether `tokenHash` (hex SHA-256 of what the caller presented) is the webhook's. */
export const tokenMatches = (webhook: GuildWebhook, tokenHash: string): boolean =>
  sameBytes(Buffer.from(webhook.tokenHash, "hex"), Buffer.from(tokenHash, "hex"))

/** The author a webhook's message shows: the webhook as a bot user, under the name and picture it posted with. */
export const webhookAuthor = (webhookId: string, name: string, avatar: string | null): UserPartialResponse => ({
  id: webhookId,
  username: name,
  discriminator: "0000",
  global_name: null,
  avatar,
  avatar_color: null,
  bot: true,
  flags: 0
})
