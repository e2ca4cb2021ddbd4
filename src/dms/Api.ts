import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { ChannelResponse } from "../model/Guilds.ts"
import { UserAuthentication } from "../http/Authentication.ts"
import { ChannelPath, RecipientPath } from "../http/Paths.ts"
import { ApiErrors } from "../model/Errors.ts"
import { MessageResponse } from "../model/Messages.ts"
import { CallEligibilityResponse, CallRingRequest, CallUpdateRequest, CreatePrivateChannelRequest, PreloadMessagesRequest } from "../model/Dms.ts"

const PreloadMessagesResponse = Schema.Record(Schema.String, Schema.NullOr(MessageResponse))

/** DM and group DM channels: the user's list, opening one, recipients, message preloads and calls. */
export class DmsApi extends HttpApiGroup.make("dms").add(
  HttpApiEndpoint.get("list", "/users/@me/channels", { success: Schema.Array(ChannelResponse), error: ApiErrors }),
  HttpApiEndpoint.post("create", "/users/@me/channels", {
    payload: CreatePrivateChannelRequest,
    success: ChannelResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("preload", "/users/@me/channels/messages/preload", {
    payload: PreloadMessagesRequest,
    success: PreloadMessagesResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("preloadMessages", "/users/@me/preload-messages", {
    payload: PreloadMessagesRequest,
    success: PreloadMessagesResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.put("addRecipient", "/channels/:channel_id/recipients/:user_id", { params: RecipientPath, error: ApiErrors }),
  HttpApiEndpoint.delete("removeRecipient", "/channels/:channel_id/recipients/:user_id", {
    params: RecipientPath,
    query: { silent: Schema.optional(Schema.String), delete_messages: Schema.optional(Schema.String) },
    error: ApiErrors
  }),
  HttpApiEndpoint.get("call", "/channels/:channel_id/call", {
    params: ChannelPath,
    success: CallEligibilityResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.patch("updateCall", "/channels/:channel_id/call", {
    params: ChannelPath,
    payload: CallUpdateRequest,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("ring", "/channels/:channel_id/call/ring", { params: ChannelPath, payload: CallRingRequest, error: ApiErrors }),
  HttpApiEndpoint.post("stopRinging", "/channels/:channel_id/call/stop-ringing", {
    params: ChannelPath,
    payload: CallRingRequest,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("endCall", "/channels/:channel_id/call/end", { params: ChannelPath, error: ApiErrors })
).middleware(UserAuthentication) {}
