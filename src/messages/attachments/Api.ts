import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { ApiErrors } from "../../model/Errors.ts"

/**
 * The files of message attachments, by hash and name (the `url` of a
 * MessageAttachmentResponse). Public like a CDN, as `/media/{hash}` is: the
 * hash names the bytes and cannot be guessed.
 */
export class AttachmentFilesApi extends HttpApiGroup.make("attachmentFiles").add(
  HttpApiEndpoint.get("get", "/attachments/:hash/:filename", {
    params: { hash: Schema.String, filename: Schema.String },
    error: ApiErrors
  })
) {}
