import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOrBot } from "../../http/Authentication.ts"
import { Snowflake } from "../../model/Ids.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { RateLimit, RateLimitBucket } from "../../ratelimit/RateLimit.ts"
import { UserPartialResponse } from "../../model/Users.ts"
import { ReactionEmojiText } from "../../model/ReactionEmoji.ts"
import { MessagePath, TargetUserPath } from "../../http/Paths.ts"

const emojiPath = { ...MessagePath, emoji: ReactionEmojiText }

/** `limit` 1..100 (conventions.md, Paging: reactions); it arrives as text. */
export const ReactionLimit = Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 100 }))
export const DEFAULT_REACTION_LIMIT = 25

const usersQuery = { limit: Schema.optional(ReactionLimit), after: Schema.optional(Snowflake) }

/** The session a reaction came from: accepted, not used (every session of the user hears the event). */
const sessionQuery = { session_id: Schema.optional(Schema.String) }

/** Reactions 30 per 10 s per user (conventions.md, Rate limits). */
const bucket = { name: "messages.reactions", limit: 30, windowMillis: 10_000 }

export const ReactionUsersPage = Schema.Struct({
  items: Schema.Array(UserPartialResponse),
  has_more: Schema.Boolean,
  next_after: Schema.NullOr(Schema.String)
})

/** Reactions on guild channel messages. */
export class ReactionsApi extends HttpApiGroup.make("reactions").add(
  HttpApiEndpoint.put("add", "/channels/:channel_id/messages/:message_id/reactions/:emoji/@me", {
    params: emojiPath,
    query: sessionQuery,
    error: ApiErrors
  }).annotate(Credentials, userOrBot).annotate(RateLimitBucket, bucket).middleware(RateLimit),
  HttpApiEndpoint.delete("removeOwn", "/channels/:channel_id/messages/:message_id/reactions/:emoji/@me", {
    params: emojiPath,
    query: sessionQuery,
    error: ApiErrors
  }).annotate(Credentials, userOrBot).annotate(RateLimitBucket, bucket).middleware(RateLimit),
  HttpApiEndpoint.delete("removeUser", "/channels/:channel_id/messages/:message_id/reactions/:emoji/:target_id", {
    params: { ...emojiPath, ...TargetUserPath },
    query: sessionQuery,
    error: ApiErrors
  }).annotate(Credentials, userOrBot).annotate(RateLimitBucket, bucket).middleware(RateLimit),
  HttpApiEndpoint.delete("removeEmoji", "/channels/:channel_id/messages/:message_id/reactions/:emoji", {
    params: emojiPath,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.delete("removeAll", "/channels/:channel_id/messages/:message_id/reactions", {
    params: MessagePath,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.get("users", "/channels/:channel_id/messages/:message_id/reactions/:emoji", {
    params: emojiPath,
    query: usersQuery,
    success: Schema.Array(UserPartialResponse),
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.get("usersPage", "/channels/:channel_id/messages/:message_id/reactions/:emoji/users", {
    params: emojiPath,
    query: usersQuery,
    success: ReactionUsersPage,
    error: ApiErrors
  }).annotate(Credentials, userOrBot)
).middleware(UserAuthentication) {}
