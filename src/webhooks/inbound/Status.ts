import { Schema } from "effect"
import type { RichEmbedRequest } from "../../model/MessageRequests.ts"
import type { WebhookDraft } from "../Executor.ts"
import { embedDraft, webUrl } from "./Embeds.ts"
import { nullish } from "./Payloads.ts"

/*
 * A status page's event, as Statuspage posts it: an incident (scheduled
 * maintenance arrives as an incident with maintenance statuses), a
 * maintenance, or a component's status change. Everything is optional in the
 * spec's StatusWebhook; what the payload carries decides what it is.
 */

const Text = nullish(Schema.String)

const Update = Schema.Struct({ body: Text, status: Text, created_at: Text, display_at: Text })
const AffectedComponent = Schema.Struct({ name: Text })

const Incident = Schema.Struct({
  id: Text,
  name: Text,
  url: Text,
  shortlink: Text,
  status: Text,
  impact: Text,
  created_at: Text,
  updated_at: Text,
  resolved_at: Text,
  incident_updates: nullish(Schema.Array(Update)),
  affected_components: nullish(Schema.Array(AffectedComponent)),
  components: nullish(Schema.Array(AffectedComponent))
})

const Maintenance = Schema.Struct({
  id: Text,
  name: Text,
  url: Text,
  status: Text,
  impact: Text,
  updated_at: Text,
  maintenance_updates: nullish(Schema.Array(Update)),
  affected_components: nullish(Schema.Array(AffectedComponent))
})

export const StatusWebhook = Schema.Struct({
  meta: nullish(Schema.Struct({ unsubscribe: Text, documentation: Text })),
  page: nullish(Schema.Struct({ id: Text, status_indicator: Text, status_description: Text, url: Text })),
  incident: nullish(Incident),
  maintenance: nullish(Maintenance),
  component_update: nullish(Schema.Struct({ created_at: Text, old_status: Text, new_status: Text, component_id: Text })),
  component: nullish(Schema.Struct({ id: Text, name: Text, status: Text, created_at: Text }))
})
export type StatusWebhook = typeof StatusWebhook.Type

type Update = typeof Update.Type

/** `major_outage` as "Major Outage". */
const label = (status: string) =>
  status.split("_").filter((word) => word !== "").map((word) => word[0]?.toUpperCase() + word.slice(1)).join(" ")

/** The colour of a status, incident or component alike. */
const colours: Record<string, number> = {
  investigating: 0xe74c3c,
  identified: 0xe67e22,
  monitoring: 0x3498db,
  resolved: 0x2ecc71,
  postmortem: 0x95a5a6,
  scheduled: 0x3498db,
  in_progress: 0xf1c40f,
  verifying: 0xf1c40f,
  completed: 0x2ecc71,
  operational: 0x2ecc71,
  degraded_performance: 0xf1c40f,
  partial_outage: 0xe67e22,
  major_outage: 0xe74c3c,
  under_maintenance: 0x3498db
}
const colourOf = (status: string | null | undefined) => (status ? colours[status] : undefined)

/** What a status means for an incident (scheduled maintenance is one too), as a title's start. */
const incidentHeadline = (status: string | null | undefined, updates: number) => {
  switch (status) {
    case "resolved":
      return "Incident resolved"
    case "postmortem":
      return "Postmortem published"
    case "scheduled":
    case "in_progress":
    case "verifying":
    case "completed":
      return maintenanceHeadline(status)
    default:
      return updates <= 1 ? "New incident" : "Incident update"
  }
}

const maintenanceHeadline = (status: string | null | undefined) => {
  switch (status) {
    case "scheduled":
      return "Maintenance scheduled"
    case "in_progress":
      return "Maintenance in progress"
    case "completed":
    case "resolved":
      return "Maintenance completed"
    default:
      return "Maintenance update"
  }
}

/** An ISO timestamp as the embed schema takes it, or nothing for text that is not a time. */
const timestamp = (text: string | null | undefined) => {
  if (!text) return undefined
  const time = Date.parse(text)
  return Number.isNaN(time) ? undefined : new Date(time).toISOString()
}

/** The newest update: the sender lists newest first, but the times decide. */
const latest = (updates: ReadonlyArray<Update>) =>
  updates.reduce<Update | undefined>((newest, update) => {
    if (newest === undefined) return update
    const at = (u: Update) => Date.parse(u.display_at ?? u.created_at ?? "")
    return at(update) > at(newest) ? update : newest
  }, undefined)

const footerOf = (body: StatusWebhook) =>
  body.page?.status_description ? { text: body.page.status_description } : undefined

/** An incident or a maintenance: its newest update as the description, its status, impact and components as fields. */
const happening = (
  body: StatusWebhook,
  headline: (status: string | null | undefined, updates: number) => string,
  subject: {
    name?: string | null | undefined
    url?: string | null | undefined
    status?: string | null | undefined
    impact?: string | null | undefined
    updated_at?: string | null | undefined
  },
  updates: ReadonlyArray<Update>,
  components: ReadonlyArray<{ name?: string | null | undefined }>,
  link: string | undefined
): RichEmbedRequest => {
  const newest = latest(updates)
  const status = subject.status ?? newest?.status
  const affected = components.flatMap((component) => (component.name ? [component.name] : []))
  const fields = [
    status ? { name: "Status", value: label(status), inline: true } : undefined,
    subject.impact && subject.impact !== "none" ? { name: "Impact", value: label(subject.impact), inline: true } : undefined,
    affected.length > 0 ? { name: "Affected components", value: affected.join(", "), inline: false } : undefined
  ].filter((field) => field !== undefined)
  return {
    title: `${headline(status, updates.length)}: ${subject.name ?? "Unnamed"}`,
    url: link,
    description: newest?.body ?? undefined,
    color: colourOf(status),
    fields,
    footer: footerOf(body),
    timestamp: timestamp(newest?.display_at ?? newest?.created_at ?? subject.updated_at)
  }
}

const statusEmbed = (body: StatusWebhook): RichEmbedRequest | null => {
  const pageUrl = webUrl(body.page?.url)
  if (body.incident) {
    const incident = body.incident
    const updates = incident.incident_updates ?? []
    const components = incident.affected_components ?? incident.components ?? []
    return happening(body, incidentHeadline, incident, updates, components, webUrl(incident.url) ?? webUrl(incident.shortlink) ?? pageUrl)
  }
  if (body.maintenance) {
    const maintenance = body.maintenance
    return happening(
      body,
      maintenanceHeadline,
      maintenance,
      maintenance.maintenance_updates ?? [],
      maintenance.affected_components ?? [],
      webUrl(maintenance.url) ?? pageUrl
    )
  }
  const change = body.component_update
  const newStatus = change?.new_status ?? body.component?.status
  if (change && newStatus) {
    const name = body.component?.name ?? change.component_id ?? "A component"
    return {
      title: `${name} is now ${label(newStatus)}`,
      url: pageUrl,
      description: change.old_status ? `${label(change.old_status)} → ${label(newStatus)}` : undefined,
      color: colourOf(newStatus),
      footer: footerOf(body),
      timestamp: timestamp(change.created_at)
    }
  }
  return null
}

/** A status-page event as the message the webhook posts, or null for one that names no incident, maintenance or component change. */
export const statusDraft = (body: StatusWebhook): WebhookDraft | null => {
  const embed = statusEmbed(body)
  return embed === null ? null : embedDraft(embed)
}
