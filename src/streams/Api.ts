import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOnly } from "../http/Authentication.ts"
import { ApiErrors } from "../model/Errors.ts"
import { Snowflake } from "../model/Ids.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"

/** A preview's base64: about 675 KB of image, inside the server's 1 MB cap on request bodies (src/http/Server.ts). */
export const MAX_THUMBNAIL_CHARS = 900_000

const StreamKeyPath = Schema.Struct({ stream_key: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(256)) })

/** reference/schemas.md, StreamPreviewUploadBodySchema. */
export const StreamPreviewUploadBody = Schema.Struct({
  channel_id: Snowflake,
  thumbnail: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(MAX_THUMBNAIL_CHARS)),
  content_type: Schema.optional(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(64)))
})

const bucket = (name: string, limit: number) => ({ name: `streams.${name}`, limit, windowMillis: 10_000 })

/**
 * Part C: a stream's preview image, sent by the streamer's client while it
 * streams and fetched by those who may watch (the image itself, 404 when none).
 */
export class StreamsApi extends HttpApiGroup.make("streams").add(
  HttpApiEndpoint.get("getPreview", "/streams/:stream_key/preview", { params: StreamKeyPath, error: ApiErrors })
    .annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("preview.get", 60)).middleware(RateLimit),
  HttpApiEndpoint.post("uploadPreview", "/streams/:stream_key/preview", { params: StreamKeyPath, payload: StreamPreviewUploadBody, error: ApiErrors })
    .annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("preview.post", 20)).middleware(RateLimit)
).middleware(UserAuthentication) {}
