import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { ApiErrors } from "../model/Errors.ts"

/**
 * Stored media by hash, public like a CDN: the hash is unguessable and names
 * the bytes, so the answer may be cached forever.
 */
export class MediaApi extends HttpApiGroup.make("media").add(
  HttpApiEndpoint.get("get", "/media/:hash", {
    params: { hash: Schema.String },
    error: ApiErrors
  })
) {}
