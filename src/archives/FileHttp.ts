import { Effect, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { MediaStore, mediaUnavailable } from "../media/MediaStore.ts"
import { Forbidden, NotFound } from "../model/Errors.ts"
import { ArchivesRepo } from "./Repo.ts"
import { validSignature } from "./Signing.ts"

const denied = (message: string) => new Forbidden({ code: "ACCESS_DENIED", message })
const gone = () => new NotFound({ code: "HARVEST_EXPIRED", message: "This export has expired" })

/**
 * The zip of an archive, for a signed URL that has not expired. Only a
 * complete archive has a file: a job still writing (or rewriting after a
 * crash) has stored nothing under its row yet.
 */
const ArchiveFilesHandlers = HttpApiBuilder.group(Api, "archiveFiles", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const repo = yield* ArchivesRepo
    const store = yield* MediaStore
    return handlers.handle("get", ({ params, query }) =>
      Effect.gen(function*() {
        const key = yield* repo.signingKey(params.archive_id)
        if (key === undefined || !validSignature(key, params.archive_id, query.expires, query.signature)) {
          return yield* denied("This download link is not valid")
        }
        if (query.expires * 1000 <= Date.now()) return yield* denied("This download link has expired")
        const row = yield* repo.find(params.archive_id)
        if (row?.file_hash == null || row.status !== "completed") return yield* gone()
        const bytes = yield* store.get(row.file_hash).pipe(Effect.catch(mediaUnavailable))
        if (bytes === undefined) return yield* gone()
        return HttpServerResponse.uint8Array(bytes, {
          contentType: "application/zip",
          headers: {
            "cache-control": "private, no-store",
            "content-disposition": `attachment; filename="${row.subject_type}-${row.subject_id}-${row.id}.zip"`
          }
        })
      }))
  })))

export const ArchiveFilesHttp = perRequestMiddlewaresOnly(ArchiveFilesHandlers).pipe(Layer.provide(ArchivesRepo.layer))
