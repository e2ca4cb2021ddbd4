import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../http/Api.ts"
import { NotFound } from "../http/Errors.ts"
import { lean, withBuildContext } from "../http/LeanGroups.ts"
import { contentTypeOf, inspectImage } from "./Images.ts"
import { MediaStore, mediaUnavailable } from "./MediaStore.ts"

const unknownMedia = () => new NotFound({ code: "NOT_FOUND", message: "No media under this hash" })

/** A year: objects never change under their hash. */
const CACHE_CONTROL = "public, max-age=31536000, immutable"

export const MediaHttp = lean(HttpApiBuilder.group(Api, "media", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const store = yield* MediaStore
    return handlers.handle("get", ({ params, request }) =>
      Effect.gen(function*() {
        const etag = `"${params.hash}"`
        const bytes = yield* store.get(params.hash).pipe(Effect.catch(mediaUnavailable))
        if (bytes === undefined) return yield* unknownMedia()
        const headers = { "cache-control": CACHE_CONTROL, etag }
        if (request.headers["if-none-match"] === etag) return HttpServerResponse.empty({ status: 304, headers })
        // Only validated images are stored; the header tells which kind this one is.
        const info = inspectImage(bytes)
        const contentType = info === undefined ? "application/octet-stream" : contentTypeOf[info.format]
        return HttpServerResponse.uint8Array(bytes, { contentType, headers })
      }))
  }))))
