import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { ApiErrors } from "../model/Errors.ts"
import { Snowflake } from "../model/Ids.ts"

/**
 * An archive's zip, through the signed URL the download endpoints hand out
 * (Signing.ts): no credential but the signature, which names the archive and
 * when it stops working.
 */
export class ArchiveFilesApi extends HttpApiGroup.make("archiveFiles").add(
  HttpApiEndpoint.get("get", "/archives/:archive_id/file", {
    params: { archive_id: Snowflake },
    query: {
      expires: Schema.NumberFromString.check(Schema.isInt()),
      signature: Schema.String.check(Schema.isMaxLength(100))
    },
    error: ApiErrors
  })
) {}
