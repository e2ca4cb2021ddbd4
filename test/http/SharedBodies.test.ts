import { assert, describe, it } from "@effect/vitest"
import type { HttpServerResponse } from "effect/http"
import { sharedJsonResponse } from "../../src/http/SharedBodies.ts"

const bodyOf = (response: HttpServerResponse.HttpServerResponse) => {
  const body = response.body
  if (body._tag !== "Uint8Array") throw new Error(`expected a byte body, got a ${body._tag} body`)
  return body
}
const bytesOf = (response: HttpServerResponse.HttpServerResponse): Uint8Array => bodyOf(response).body

/** A JSON array of `count` messages with text outside ASCII (1 to 4 bytes per character). */
const page = (count: number, tag: string) =>
  JSON.stringify(Array.from({ length: count }, (_, i) => ({ id: `${tag}${i}`, content: `héllo ✓ 🎉 message ${i}` })))

describe("shared JSON bodies", () => {
  it("answers a big body with its UTF-8 bytes, encoded once for the same string", () => {
    const json = page(100, "a")
    const first = sharedJsonResponse(json)
    const again = sharedJsonResponse(json)
    assert.strictEqual(bodyOf(first).contentType, "application/json")
    // No text left for the server to measure and encode again.
    assert.strictEqual(bodyOf(first).text, undefined)
    assert.deepStrictEqual(bytesOf(first), new TextEncoder().encode(json))
    assert.strictEqual(bytesOf(again), bytesOf(first))
  })

  it("writes a small body as text, keeping nothing", () => {
    const response = sharedJsonResponse('{"id":"1"}')
    assert.strictEqual(bodyOf(response).contentType, "application/json")
    assert.strictEqual(bodyOf(response).text, '{"id":"1"}')
    assert.notStrictEqual(bytesOf(sharedJsonResponse('{"id":"1"}')), bytesOf(response))
  })

  it("lets the oldest bodies go past 16 MB", () => {
    const oldest = page(10_000, "old")
    const kept = bytesOf(sharedJsonResponse(oldest))
    // About 0.6 MB each: 40 of them pass the bound.
    for (let i = 0; i < 40; i++) sharedJsonResponse(page(10_000, `n${i}`))
    const after = bytesOf(sharedJsonResponse(oldest))
    assert.notStrictEqual(after, kept)
    assert.deepStrictEqual(after, kept)
  })
})
