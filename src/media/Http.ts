import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { contentTypeOf, inspectImage } from "./Images.ts"
import { MediaStore } from "./MediaStore.ts"
import { serveStored } from "./Serve.ts"

export const MediaHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "media", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const store = yield* MediaStore
    return handlers.handle("get", ({ params, request }) =>
      serveStored(params.hash, request, (bytes) => {
        // Only validated images are stored here; the header tells which kind this one is.
        const info = inspectImage(bytes)
        return { contentType: info === undefined ? "application/octet-stream" : contentTypeOf[info.format] }
      }).pipe(Effect.provideService(MediaStore, store)))
  }))))
