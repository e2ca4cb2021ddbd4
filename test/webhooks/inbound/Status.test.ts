import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { statusDraft, StatusWebhook } from "../../../src/webhooks/inbound/Status.ts"
import { fixture, onlyEmbed, rawFixture, refuses } from "./Fixtures.ts"

describe("status-page events", () => {
  it("an incident update: the newest update, status, impact and components", () => {
    const embed = onlyEmbed(statusDraft(fixture("status-incident-update.json", StatusWebhook)))
    expect(embed).toEqual({
      title: "Incident update: Uploads are failing",
      url: "https://stspg.io/abc123",
      description: "A fix has been deployed and we are monitoring the results.",
      color: 0x3498db,
      fields: [
        { name: "Status", value: "Monitoring", inline: true },
        { name: "Impact", value: "Major", inline: true },
        { name: "Affected components", value: "Media uploads", inline: false }
      ],
      footer: { text: "Partial System Outage" },
      timestamp: "2024-05-29T22:07:53.000Z"
    })
  })

  it("a new incident, one resolved, and a scheduled maintenance", () => {
    const raw = rawFixture("status-incident-update.json")
    const incident = Schema.decodeUnknownSync(Schema.Record(Schema.String, Schema.Unknown))(raw.incident)
    const first = { body: "We are investigating failing uploads.", status: "investigating", created_at: "2024-05-29T15:08:51-06:00" }
    const event = (changes: Record<string, unknown>) =>
      onlyEmbed(statusDraft(Schema.decodeUnknownSync(StatusWebhook)({ ...raw, incident: { ...incident, ...changes } })))
    const opened = event({ status: "investigating", incident_updates: [first] })
    expect(opened?.title).toBe("New incident: Uploads are failing")
    expect(opened?.color).toBe(0xe74c3c)
    expect(opened?.description).toBe("We are investigating failing uploads.")
    const resolved = event({ status: "resolved" })
    expect(resolved?.title).toBe("Incident resolved: Uploads are failing")
    expect(resolved?.color).toBe(0x2ecc71)
    const maintenance = event({ status: "scheduled", name: "Database upgrade", impact: "maintenance", incident_updates: [] })
    expect(maintenance).toMatchObject({ title: "Maintenance scheduled: Database upgrade", color: 0x3498db })
  })

  it("a component's status change", () => {
    const embed = onlyEmbed(statusDraft(fixture("status-component-update.json", StatusWebhook)))
    expect(embed).toEqual({
      title: "Media uploads is now Major Outage",
      description: "Operational → Major Outage",
      color: 0xe74c3c,
      footer: { text: "Partial System Outage" },
      timestamp: "2024-05-29T21:32:28.000Z"
    })
  })

  it("a maintenance object, and a payload naming nothing (ignored)", () => {
    const embed = onlyEmbed(statusDraft({
      maintenance: {
        name: "Network maintenance",
        status: "in_progress",
        url: "https://status.harbour.example/maintenance/1",
        maintenance_updates: [{ body: "Work has started.", created_at: "2024-06-01T02:00:00Z" }]
      }
    }))
    expect(embed).toEqual({
      title: "Maintenance in progress: Network maintenance",
      url: "https://status.harbour.example/maintenance/1",
      description: "Work has started.",
      color: 0xf1c40f,
      fields: [{ name: "Status", value: "In Progress", inline: true }],
      timestamp: "2024-06-01T02:00:00.000Z"
    })
    expect(statusDraft(Schema.decodeUnknownSync(StatusWebhook)({ meta: rawFixture("status-component-update.json").meta }))).toBeNull()
  })

  it("the schema refuses fields of the wrong kind", () => {
    expect(refuses(StatusWebhook, { incident: { name: 5 } })).toBe(true)
    expect(refuses(StatusWebhook, { incident: { incident_updates: "none" } })).toBe(true)
  })
})
