import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOnly } from "../http/Authentication.ts"
import { BoundedText } from "../model/Common.ts"
import { ApiErrors } from "../model/Errors.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"
import { TargetUserPath } from "../http/Paths.ts"

export const MAX_NOTE_LENGTH = 256

/** UserNotesRecordResponse: target id to note. */
export const UserNotesRecordResponse = Schema.Record(Schema.String, Schema.String)
export const UserNoteResponse = Schema.Struct({ note: Schema.String })
/** UserNoteUpdateRequest: null, an empty note or none at all deletes it. */
export const UserNoteUpdateRequest = Schema.Struct({
  note: Schema.optional(Schema.NullOr(BoundedText(0, MAX_NOTE_LENGTH)))
})


/** Per user. */
const bucket = (name: string, limit: number, windowSeconds: number) => ({
  name: `notes.${name}`,
  limit,
  windowMillis: windowSeconds * 1000
})

export class NotesApi extends HttpApiGroup.make("notes").add(
  HttpApiEndpoint.get("list", "/users/@me/notes", { success: UserNotesRecordResponse, error: ApiErrors }).annotate(Credentials, userOnly)
    .annotate(RateLimitBucket, bucket("read", 60, 10))
    .middleware(RateLimit),
  HttpApiEndpoint.get("get", "/users/@me/notes/:target_id", {
    params: TargetUserPath,
    success: UserNoteResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("read", 60, 10)).middleware(RateLimit),
  HttpApiEndpoint.put("set", "/users/@me/notes/:target_id", {
    params: TargetUserPath,
    payload: UserNoteUpdateRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("write", 30, 10)).middleware(RateLimit)
).middleware(UserAuthentication) {}
