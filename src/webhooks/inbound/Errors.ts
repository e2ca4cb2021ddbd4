import { Schema } from "effect"
import type { RichEmbedRequest } from "../../model/MessageRequests.ts"
import type { WebhookDraft } from "../Executor.ts"
import { embedDraft, webUrl } from "./Embeds.ts"
import { nullish, SenderId } from "./Payloads.ts"

/*
 * An error tracker's issue event, as Sentry's integration platform posts it:
 * the spec's ErrorsWebhook, its issue with the fields the rendering reads.
 * The resource (issue, error, event_alert, installation, ...) is named by a header.
 */

const ErrorsIssue = Schema.Struct({
  id: SenderId,
  title: Schema.String,
  shortId: nullish(Schema.String),
  culprit: nullish(Schema.String),
  level: nullish(Schema.String),
  status: nullish(Schema.String),
  web_url: nullish(Schema.String),
  permalink: nullish(Schema.String),
  project: nullish(Schema.Struct({ name: nullish(Schema.String), slug: nullish(Schema.String) })),
  /** Events seen, as a decimal string. */
  count: nullish(Schema.Union([Schema.String, Schema.Number])),
  userCount: nullish(Schema.Number),
  assignedTo: nullish(Schema.Struct({ type: nullish(Schema.String), name: nullish(Schema.String), email: nullish(Schema.String) }))
})

export const ErrorsWebhook = Schema.Struct({
  action: nullish(Schema.String),
  actor: nullish(Schema.Struct({ id: nullish(SenderId), name: nullish(Schema.String), type: nullish(Schema.String) })),
  data: nullish(Schema.Struct({ issue: nullish(ErrorsIssue) })),
  installation: nullish(Schema.Struct({ uuid: nullish(Schema.String) }))
})
export type ErrorsWebhook = typeof ErrorsWebhook.Type

/** The header naming the resource an error-tracker event is about. */
export const ERRORS_RESOURCE_HEADER = "sentry-hook-resource"

/** The tracker's colours for an issue's level; an unknown level is shown as an error. */
const levelColours: Record<string, number> = {
  fatal: 0xa4000f,
  error: 0xe03e2f,
  warning: 0xf5b000,
  info: 0x2788ce,
  debug: 0x6e7781
}
const RESOLVED = 0x2da44e
const SILENCED = 0x6e7781

const headlines: Record<string, string> = {
  created: "New issue",
  resolved: "Issue resolved",
  unresolved: "Issue unresolved",
  assigned: "Issue assigned",
  ignored: "Issue ignored",
  archived: "Issue archived"
}

const colourOf = (action: string, level: string | null | undefined) =>
  action === "resolved"
    ? RESOLVED
    : action === "ignored" || action === "archived"
    ? SILENCED
    : (level === null || level === undefined ? undefined : levelColours[level]) ?? levelColours.error

/**
 * An issue event as the message the webhook posts: what happened and the
 * issue's title, linked to it; its culprit (and assignee); its level and
 * counts as fields; its short id as the footer, colour by level. Events of
 * other resources (and other issue actions) are not posted.
 */
export const errorsDraft = (resource: string | undefined, body: ErrorsWebhook): WebhookDraft | null => {
  const issue = body.data?.issue
  const action = body.action ?? ""
  const headline = Object.hasOwn(headlines, action) ? headlines[action] : undefined
  if ((resource ?? "issue") !== "issue" || !issue || headline === undefined) return null
  const project = issue.project?.slug ?? issue.project?.name
  const assignee = issue.assignedTo?.name ?? issue.assignedTo?.email
  const lines = [
    action === "assigned" && assignee ? `Assigned to **${assignee}**` : undefined,
    issue.culprit ? `\`${issue.culprit}\`` : undefined
  ].filter((line) => line !== undefined)
  const fields: Array<{ name: string; value: string; inline: boolean }> = []
  if (issue.level) fields.push({ name: "Level", value: issue.level, inline: true })
  if (issue.count !== undefined && issue.count !== null) fields.push({ name: "Events", value: String(issue.count), inline: true })
  if (issue.userCount !== undefined && issue.userCount !== null) fields.push({ name: "Users", value: String(issue.userCount), inline: true })
  const embed: RichEmbedRequest = {
    title: `${project ? `[${project}] ` : ""}${headline}: ${issue.title}`,
    url: webUrl(issue.web_url) ?? webUrl(issue.permalink),
    description: lines.length > 0 ? lines.join("\n") : undefined,
    color: colourOf(action, issue.level),
    fields,
    footer: issue.shortId ? { text: issue.shortId } : undefined,
    author: body.actor?.type === "user" && body.actor.name ? { name: body.actor.name } : undefined
  }
  return embedDraft(embed)
}
