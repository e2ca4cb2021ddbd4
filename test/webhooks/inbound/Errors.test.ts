import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { errorsDraft, ErrorsWebhook } from "../../../src/webhooks/inbound/Errors.ts"
import { fixture, onlyEmbed, rawFixture, refuses } from "./Fixtures.ts"

const TITLE = "TypeError: Cannot read properties of undefined (reading 'length')"
const URL = "https://harbour-co.sentry.io/issues/1170820242/"

describe("error-tracker events", () => {
  it("an issue created: title and link, culprit, level colour and fields, short id; the tracker itself is no author", () => {
    const embed = onlyEmbed(errorsDraft("issue", fixture("errors-issue-created.json", ErrorsWebhook)))
    expect(embed).toEqual({
      title: `[front-end] New issue: ${TITLE}`,
      url: URL,
      description: "`app/components/Chain in measure`",
      color: 0xe03e2f,
      fields: [
        { name: "Level", value: "error", inline: true },
        { name: "Events", value: "1", inline: true },
        { name: "Users", value: "1", inline: true }
      ],
      footer: { text: "FRONT-END-9" }
    })
  })

  it("an issue resolved by a person: green, with them as the author", () => {
    const embed = onlyEmbed(errorsDraft("issue", fixture("errors-issue-resolved.json", ErrorsWebhook)))
    expect(embed).toEqual({
      title: `[front-end] Issue resolved: ${TITLE}`,
      url: URL,
      description: "`app/components/Chain in measure`",
      color: 0x2da44e,
      fields: [
        { name: "Level", value: "error", inline: true },
        { name: "Events", value: "42", inline: true },
        { name: "Users", value: "7", inline: true }
      ],
      footer: { text: "FRONT-END-9" },
      author: { name: "Mona Lisa" }
    })
  })

  it("an issue assigned names the assignee; one ignored is grey; a warning's colour", () => {
    const raw = rawFixture("errors-issue-created.json")
    const data = Schema.decodeUnknownSync(Schema.Struct({ issue: Schema.Record(Schema.String, Schema.Unknown) }))(raw.data)
    const event = (action: string, issue: Record<string, unknown> = {}) =>
      errorsDraft("issue", Schema.decodeUnknownSync(ErrorsWebhook)({ ...raw, action, data: { issue: { ...data.issue, ...issue } } }))
    const assigned = onlyEmbed(event("assigned", { assignedTo: { type: "user", id: "801", name: "Mona Lisa", email: "mona@example.com" } }))
    expect(assigned?.title).toBe(`[front-end] Issue assigned: ${TITLE}`)
    expect(assigned?.description).toBe("Assigned to **Mona Lisa**\n`app/components/Chain in measure`")
    expect(onlyEmbed(event("ignored"))?.color).toBe(0x6e7781)
    expect(onlyEmbed(event("archived"))?.title).toBe(`[front-end] Issue archived: ${TITLE}`)
    expect(onlyEmbed(event("created", { level: "warning" }))?.color).toBe(0xf5b000)
  })

  it("other resources and unknown actions are ignored", () => {
    const created = fixture("errors-issue-created.json", ErrorsWebhook)
    expect(errorsDraft("installation", created)).toBeNull()
    expect(errorsDraft("event_alert", { action: "triggered", data: {} })).toBeNull()
    expect(errorsDraft("issue", { ...created, action: "seen" })).toBeNull()
    // Without the header, a payload carrying an issue is taken as the issue resource.
    expect(errorsDraft(undefined, created)).not.toBeNull()
  })

  it("the schema refuses an issue without its title", () => {
    expect(refuses(ErrorsWebhook, { action: "created", data: { issue: { id: "1" } } })).toBe(true)
    expect(refuses(ErrorsWebhook, { action: "created", data: { issue: { id: "1", title: "Oops" } } })).toBe(false)
  })
})
