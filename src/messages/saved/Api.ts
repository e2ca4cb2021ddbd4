import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOnly } from "../../http/Authentication.ts"
import { ChannelId, MessageId } from "../../model/Ids.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { MentionLimit } from "../readStates/Api.ts"
import { MessageResponse } from "../../model/Messages.ts"
import { OwnMessagePath } from "../../http/Paths.ts"

/** SaveMessageRequest (reference/schemas.md). */
export const SaveMessageRequest = Schema.Struct({ channel_id: ChannelId, message_id: MessageId })

/** SavedMessageEntryResponse: the message, or null when the user may no longer read its channel. */
export const SavedMessageEntryResponse = Schema.Struct({
  id: Schema.String,
  channel_id: Schema.String,
  message_id: Schema.String,
  status: Schema.Literals(["available", "missing_permissions"]),
  message: Schema.NullOr(MessageResponse)
})
export type SavedMessageEntryResponse = typeof SavedMessageEntryResponse.Type

export const DEFAULT_SAVED_LIMIT = 25

/** Messages a user keeps for later ("bookmarks"), newest saved first. */
export class SavedMessagesApi extends HttpApiGroup.make("savedMessages").add(
  HttpApiEndpoint.get("list", "/users/@me/saved-messages", {
    query: { limit: Schema.optional(MentionLimit) },
    success: Schema.Array(SavedMessageEntryResponse),
    error: ApiErrors
  }).annotate(Credentials, userOnly),
  HttpApiEndpoint.post("save", "/users/@me/saved-messages", { payload: SaveMessageRequest, error: ApiErrors }).annotate(Credentials, userOnly),
  HttpApiEndpoint.delete("unsave", "/users/@me/saved-messages/:message_id", {
    params: OwnMessagePath,
    error: ApiErrors
  }).annotate(Credentials, userOnly)
).middleware(UserAuthentication) {}
