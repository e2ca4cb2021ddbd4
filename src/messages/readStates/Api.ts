import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOnly } from "../../http/Authentication.ts"
import { Snowflake } from "../../model/Ids.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { MessageResponse } from "../../model/Messages.ts"
import { OwnMessagePath } from "../../http/Paths.ts"

/** ReadStateAckBulkRequest (reference/schemas.md): 1 to 100 channels. */
export const ReadStateAckBulkRequest = Schema.Struct({
  read_states: Schema.Array(Schema.Struct({ channel_id: Snowflake, message_id: Snowflake })).check(
    Schema.isMinLength(1),
    Schema.isMaxLength(100)
  )
})

const Flag = Schema.Literals(["true", "false"])

/** `limit` 1..100, default 25 (conventions.md, Paging: mentions); it arrives as text. */
export const MentionLimit = Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 100 }))
export const DEFAULT_MENTION_LIMIT = 25

/**
 * `guilds`: "true" (the default) or "false" for guild mentions at all, or the
 * comma-separated ids of the guilds to keep.
 */
export const GuildsFilter = Schema.Union([
  Flag,
  Schema.String.check(Schema.isPattern(/^\d{1,19}(,\d{1,19}){0,99}$/, { message: "INVALID_SNOWFLAKE_FORMAT: Not a list of guild ids" }))
])

/** A user's read states and the messages that mention them. */
export class ReadStatesApi extends HttpApiGroup.make("readStates").add(
  HttpApiEndpoint.post("ackBulk", "/read-states/ack-bulk", { payload: ReadStateAckBulkRequest, error: ApiErrors }).annotate(Credentials, userOnly),
  HttpApiEndpoint.get("mentions", "/users/@me/mentions", {
    query: {
      limit: Schema.optional(MentionLimit),
      roles: Schema.optional(Flag),
      everyone: Schema.optional(Flag),
      guilds: Schema.optional(GuildsFilter),
      before: Schema.optional(Snowflake)
    },
    success: Schema.Array(MessageResponse),
    error: ApiErrors
  }).annotate(Credentials, userOnly),
  HttpApiEndpoint.delete("dismissMention", "/users/@me/mentions/:message_id", {
    params: OwnMessagePath,
    error: ApiErrors
  }).annotate(Credentials, userOnly)
).middleware(UserAuthentication) {}
