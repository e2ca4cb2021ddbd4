import { expect } from "@effect/vitest"
import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { MessageCreateRequest } from "../../../src/model/MessageRequests.ts"
import type { WebhookDraft } from "../../../src/webhooks/Executor.ts"

/** A sender's payload from fixtures/, decoded as the route decodes it: a realistic payload must decode. */
export const fixture = <S extends Schema.Top & { readonly DecodingServices: never }>(name: string, schema: S): S["Type"] =>
  Schema.decodeUnknownSync(schema)(JSON.parse(readFileSync(join(import.meta.dirname, "fixtures", name), "utf8")))

/** The raw JSON of a fixture, to vary before decoding. */
export const rawFixture = (name: string): Record<string, unknown> => {
  const parsed: unknown = JSON.parse(readFileSync(join(import.meta.dirname, "fixtures", name), "utf8"))
  return Schema.decodeUnknownSync(Schema.Record(Schema.String, Schema.Unknown))(parsed)
}

/** Whether a schema refuses the input. */
export const refuses = (schema: Schema.Top & { readonly DecodingServices: never }, input: unknown) =>
  Schema.decodeUnknownExit(schema)(input)._tag === "Failure"

/** The draft is a message the guild would accept: every limit of the create body holds. */
export const expectPostable = (draft: WebhookDraft | null) => {
  expect(draft).not.toBeNull()
  const exit = Schema.decodeUnknownExit(MessageCreateRequest)({ content: draft?.content, embeds: draft?.embeds })
  expect(exit._tag, String(exit._tag === "Failure" ? exit.cause : "")).toBe("Success")
}

/** The one embed of a draft that renders a single event. */
export const onlyEmbed = (draft: WebhookDraft | null) => {
  expectPostable(draft)
  expect(draft?.embeds).toHaveLength(1)
  return draft?.embeds?.[0]
}
