import { Schema } from "effect"
import type { RichEmbedRequest } from "../../model/MessageRequests.ts"
import type { WebhookDraft } from "../Executor.ts"
import { fitDraft, webUrl } from "./Embeds.ts"
import { slackPlain, slackToMarkdown } from "./SlackText.ts"
import { nullish } from "./Payloads.ts"

/*
 * A chat tool's incoming-webhook message (Slack's format, which many tools
 * send): the spec's ChatWebhookRequest, with the attachment fields the
 * rendering reads. Blocks and other fields are accepted and not read.
 */

const Text = nullish(Schema.String)

const ChatField = Schema.Struct({
  title: Text,
  value: nullish(Schema.Union([Schema.String, Schema.Number, Schema.Boolean])),
  short: nullish(Schema.Boolean)
})

const ChatAttachment = Schema.Struct({
  fallback: Text,
  pretext: Text,
  text: Text,
  color: Text,
  title: Text,
  title_link: Text,
  fields: nullish(Schema.Array(ChatField)),
  footer: Text,
  footer_icon: Text,
  /** Seconds since the epoch; some senders send it as a string, some with a fraction. */
  ts: nullish(Schema.Union([Schema.Number, Schema.String])),
  author_name: Text,
  author_link: Text,
  author_icon: Text,
  image_url: Text,
  thumb_url: Text
})
type ChatAttachment = typeof ChatAttachment.Type

export const ChatWebhookRequest = Schema.Struct({
  text: Text,
  username: Text,
  icon_url: Text,
  attachments: nullish(Schema.Array(ChatAttachment))
})
export type ChatWebhookRequest = typeof ChatWebhookRequest.Type

/** Slack's named attachment colours, as Slack shows them. */
const namedColours: Record<string, number> = { good: 0x2eb886, warning: 0xdaa038, danger: 0xa30200 }

/** A named colour or `#rrggbb` / `#rgb` (the `#` optional); anything else leaves the embed uncoloured. */
export const chatColour = (value: string | null | undefined): number | undefined => {
  if (!value) return undefined
  const named = namedColours[value.toLowerCase()]
  if (named !== undefined) return named
  const hex = /^#?([0-9a-f]{6}|[0-9a-f]{3})$/i.exec(value.trim())?.[1]
  if (hex === undefined) return undefined
  return Number.parseInt(hex.length === 3 ? [...hex].map((digit) => digit + digit).join("") : hex, 16)
}

/** `ts` (seconds) as an ISO timestamp, or nothing for one that is not a time. */
const timestampOf = (ts: number | string | null | undefined): string | undefined => {
  const seconds = typeof ts === "string" ? Number(ts) : ts
  if (seconds === undefined || seconds === null || !Number.isFinite(seconds) || seconds < 0) return undefined
  const date = new Date(Math.floor(seconds * 1000))
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString()
}

const has = (text: string | null | undefined): text is string => text !== undefined && text !== null && text.trim() !== ""

/**
 * One attachment as an embed: title and link, pretext and text (or, for an
 * attachment with nothing else, its fallback) as the description, author,
 * fields (short ones inline), image, thumbnail, footer, time and colour.
 */
const attachmentEmbed = (attachment: ChatAttachment): RichEmbedRequest | undefined => {
  const fields = (attachment.fields ?? []).flatMap((field) =>
    has(field.title) && field.value !== undefined && field.value !== null && String(field.value).trim() !== ""
      ? [{ name: slackPlain(field.title), value: slackToMarkdown(String(field.value)), inline: field.short ?? false }]
      : []
  )
  const image = webUrl(attachment.image_url)
  const thumbnail = webUrl(attachment.thumb_url)
  const written = [attachment.pretext, attachment.text].filter(has).map(slackToMarkdown)
  const bare = written.length === 0 && !has(attachment.title) && fields.length === 0 && image === undefined
  const description = written.length > 0 ? written.join("\n") : bare && has(attachment.fallback) ? slackToMarkdown(attachment.fallback) : undefined
  const embed: RichEmbedRequest = {
    title: has(attachment.title) ? slackPlain(attachment.title) : undefined,
    url: webUrl(attachment.title_link),
    description,
    color: chatColour(attachment.color),
    author: has(attachment.author_name)
      ? { name: slackPlain(attachment.author_name), url: webUrl(attachment.author_link), icon_url: webUrl(attachment.author_icon) }
      : undefined,
    fields: fields.length > 0 ? fields : undefined,
    image: image === undefined ? undefined : { url: image },
    thumbnail: thumbnail === undefined ? undefined : { url: thumbnail },
    footer: has(attachment.footer) ? { text: slackPlain(attachment.footer), icon_url: webUrl(attachment.footer_icon) } : undefined,
    timestamp: timestampOf(attachment.ts)
  }
  const shown = embed.title ?? embed.description ?? embed.author ?? embed.fields ?? embed.image ?? embed.thumbnail ?? embed.footer
  return shown === undefined ? undefined : embed
}

/**
 * A chat-tool message as the message the webhook posts: its text as the
 * content, each attachment as an embed, its username and icon as the
 * author's override. A message with nothing to show stays empty, and posting
 * it is refused as any empty message is.
 */
export const chatDraft = (body: ChatWebhookRequest): WebhookDraft =>
  fitDraft({
    content: has(body.text) ? slackToMarkdown(body.text) : undefined,
    embeds: (body.attachments ?? []).flatMap((attachment) => attachmentEmbed(attachment) ?? []),
    username: body.username ?? undefined,
    avatar_url: webUrl(body.icon_url)
  })
