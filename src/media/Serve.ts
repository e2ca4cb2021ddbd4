import { Effect } from "effect"
import { type HttpServerRequest, HttpServerResponse } from "effect/http"
import { NotFound } from "../model/Errors.ts"
import { MediaStore, mediaUnavailable } from "./MediaStore.ts"

/** A year: objects never change under their hash. */
const CACHE_CONTROL = "public, max-age=31536000, immutable"

/**
 * The object stored under `hash` as a response cached forever (its hash is its
 * ETag, so a revalidation is a 304), typed by `describe` from its bytes.
 */
export const serveStored = (
  hash: string,
  request: HttpServerRequest.HttpServerRequest,
  describe: (bytes: Uint8Array) => { readonly contentType: string; readonly headers?: Readonly<Record<string, string>> }
) =>
  Effect.gen(function*() {
    const store = yield* MediaStore
    const etag = `"${hash}"`
    const bytes = yield* store.get(hash).pipe(Effect.catch(mediaUnavailable))
    if (bytes === undefined) return yield* new NotFound({ code: "NOT_FOUND", message: "No media under this hash" })
    const { contentType, headers: extra } = describe(bytes)
    const headers = { "cache-control": CACHE_CONTROL, etag, ...extra }
    if (request.headers["if-none-match"] === etag) return HttpServerResponse.empty({ status: 304, headers })
    return HttpServerResponse.uint8Array(bytes, { contentType, headers })
  })
