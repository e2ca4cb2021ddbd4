import { HttpServerResponse } from "effect/http"

/** Bytes kept at most: the newest pages of the busiest channels, not every page ever read. */
const MAX_BYTES = 16 * 1024 * 1024

/** Bodies below this are encoded as they go: keeping them would cost more than it saves. */
const MIN_LENGTH = 4096

/**
 * The UTF-8 bytes of JSON bodies that many requests answer with the same
 * string (a channel's newest page, rendered once per window and read by every
 * client that opens the channel). Written from a string, such a body is
 * measured twice (the response's length, Node's check of it) and encoded
 * once per request; from its bytes, none of that. The key is the very string
 * the renderer keeps, whose hash V8 computes once, so a repeat is a lookup.
 * Oldest first out when the bound is reached.
 */
const encoded = new Map<string, Uint8Array>()
let heldBytes = 0

const bytesOf = (json: string): Uint8Array => {
  const known = encoded.get(json)
  if (known !== undefined) return known
  const bytes = Buffer.from(json, "utf8")
  encoded.set(json, bytes)
  heldBytes += bytes.length
  for (const [oldest, held] of encoded) {
    if (heldBytes <= MAX_BYTES) break
    encoded.delete(oldest)
    heldBytes -= held.length
  }
  return bytes
}

/** A JSON body that the same string answers again and again: written from bytes encoded once. */
export const sharedJsonResponse = (json: string): HttpServerResponse.HttpServerResponse =>
  json.length < MIN_LENGTH
    ? HttpServerResponse.text(json, { contentType: "application/json" })
    : HttpServerResponse.uint8Array(bytesOf(json), { contentType: "application/json" })

/**
 * A body that is JSON already (an actor's rendered view): written as it is,
 * where a handler's return value would be encoded through its schema again.
 */
export const jsonResponse = (json: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(json, { contentType: "application/json" })
