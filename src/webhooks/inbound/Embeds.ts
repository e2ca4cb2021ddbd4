import type { RichEmbedRequest } from "../../model/MessageRequests.ts"
import { MAX_CONTENT, MAX_EMBED_CHARACTERS, MAX_EMBEDS } from "../../model/MessageRequests.ts"
import type { WebhookDraft } from "../Executor.ts"

/*
 * What a rendered event must respect to be postable: RichEmbedRequest's
 * per-text limits (in code points) and the message's limits on embeds and on
 * their characters together (in UTF-16 units, as `embedCharacters` counts).
 * Every format renders freely and passes its draft through `fitDraft`, so a
 * long commit message or issue body shortens the message instead of making it invalid.
 */
const MAX_TITLE = 256
const MAX_DESCRIPTION = 4096
const MAX_AUTHOR_NAME = 256
const MAX_FOOTER = 2048
const MAX_FIELDS = 25
const MAX_FIELD_NAME = 256
const MAX_FIELD_VALUE = 1024
/** A webhook's display name, as for the webhook's own name. */
const MAX_USERNAME = 80

/** Bodies (issue, comment, release notes) are excerpts in a chat message, as the hosting services' own integrations show them. */
export const EXCERPT = 500

const ELLIPSIS = "…"

/**
 * `text` in at most `max` code points and `units` UTF-16 units, an ellipsis
 * marking a cut; code points are never split.
 */
export const clip = (text: string, max: number, units = Number.POSITIVE_INFINITY): string => {
  const points = [...text]
  if (points.length <= max && text.length <= units) return text
  let kept = ""
  let count = 0
  for (const point of points) {
    if (count + 2 > max || kept.length + point.length + ELLIPSIS.length > units) break
    kept += point
    count++
  }
  return units < ELLIPSIS.length || max < 1 ? "" : `${kept.trimEnd()}${ELLIPSIS}`
}

/** `text` in one line of at most `max` code points: the first line of a commit message. */
export const firstLine = (text: string, max: number): string => clip(text.split(/\r?\n/, 1)[0] ?? "", max)

/** An http(s) URL, or nothing: what senders put in link and image fields is not trusted to be one. */
export const webUrl = (value: string | null | undefined): string | undefined => {
  if (value === undefined || value === null || value === "") return undefined
  try {
    const url = new URL(value)
    return url.protocol === "https:" || url.protocol === "http:" ? value : undefined
  } catch {
    return undefined
  }
}

/** A non-empty text or nothing: the embed schema refuses empty names, values and footers. */
const present = (text: string | null | undefined): text is string => text !== undefined && text !== null && text.trim() !== ""

type Mutable<T> = { -readonly [K in keyof T]: T[K] }
type Field = NonNullable<RichEmbedRequest["fields"]>[number]

/** Fits one embed into the per-text limits and what is left of the message's character budget. */
const fitEmbed = (embed: RichEmbedRequest, budget: { left: number }): RichEmbedRequest => {
  const take = (text: string, max: number) => {
    const kept = clip(text, max, budget.left)
    budget.left -= kept.length
    return kept
  }
  const fitted: Mutable<RichEmbedRequest> = { ...embed }
  if (present(embed.title)) fitted.title = take(embed.title, MAX_TITLE)
  else delete fitted.title
  if (embed.author !== undefined && embed.author !== null && present(embed.author.name)) {
    fitted.author = { ...embed.author, name: take(embed.author.name, MAX_AUTHOR_NAME) }
  } else delete fitted.author
  if (present(embed.description)) fitted.description = take(embed.description, MAX_DESCRIPTION)
  else delete fitted.description
  const fields: Array<Field> = []
  for (const field of (embed.fields ?? []).slice(0, MAX_FIELDS)) {
    if (!present(field.name) || !present(field.value)) continue
    const name = take(field.name, MAX_FIELD_NAME)
    const value = take(field.value, MAX_FIELD_VALUE)
    if (name === "" || value === "") break
    fields.push({ ...field, name, value })
  }
  if (fields.length > 0) fitted.fields = fields
  else delete fitted.fields
  if (embed.footer !== undefined && embed.footer !== null && present(embed.footer.text)) {
    fitted.footer = { ...embed.footer, text: take(embed.footer.text, MAX_FOOTER) }
  } else delete fitted.footer
  // A text cut to nothing by the budget is dropped, never sent empty.
  if (fitted.title === "") delete fitted.title
  if (fitted.description === "") delete fitted.description
  if (fitted.author?.name === "") delete fitted.author
  if (fitted.footer?.text === "") delete fitted.footer
  return fitted
}

/** The draft within a message's limits: its content, each embed's texts, the number of embeds and their characters together. */
export const fitDraft = (draft: WebhookDraft): WebhookDraft => {
  const budget = { left: MAX_EMBED_CHARACTERS }
  const embeds = (draft.embeds ?? []).slice(0, MAX_EMBEDS).map((embed) => fitEmbed(embed, budget))
  const fitted: Mutable<WebhookDraft> = {}
  if (present(draft.content)) fitted.content = clip(draft.content, MAX_CONTENT)
  if (embeds.length > 0) fitted.embeds = embeds
  if (present(draft.username)) fitted.username = clip(draft.username.trim(), MAX_USERNAME)
  const avatar = webUrl(draft.avatar_url)
  if (avatar !== undefined) fitted.avatar_url = avatar
  return fitted
}

/** A draft of one embed: what every source-control, error-tracker and status-page event renders as. */
export const embedDraft = (embed: RichEmbedRequest): WebhookDraft => fitDraft({ embeds: [embed] })
