import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { MediaStore } from "../../media/MediaStore.ts"
import { serveStored } from "../../media/Serve.ts"
import { contentTypeFor } from "./Types.ts"

/** Shown in the browser: media and text; anything else is offered as a download. */
const INLINE = /^(image|video|audio|text)\//

export const AttachmentFilesHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "attachmentFiles", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const store = yield* MediaStore
    return handlers.handle("get", ({ params, request }) =>
      serveStored(params.hash, request, (bytes) => {
        const contentType = contentTypeFor(params.filename, bytes)
        const disposition = INLINE.test(contentType) ? "inline" : "attachment"
        return {
          contentType,
          headers: {
            // The type is ours to say, never the browser's to guess from the bytes.
            "x-content-type-options": "nosniff",
            "content-disposition": `${disposition}; filename*=UTF-8''${encodeURIComponent(params.filename)}`
          }
        }
      }).pipe(Effect.provideService(MediaStore, store)))
  }))))
