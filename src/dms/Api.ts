import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { ChannelResponse } from "../model/Guilds.ts"
import { Credentials, UserAuthentication, userOnly, userOrBot } from "../http/Authentication.ts"
import { ChannelPath, RecipientPath } from "../http/Paths.ts"
import { ApiErrors } from "../model/Errors.ts"
import { MessageResponse } from "../model/Messages.ts"
import { CallEligibilityResponse, CallRingRequest, CallUpdateRequest, CreatePrivateChannelRequest, PreloadMessagesRequest } from "../model/Dms.ts"

const PreloadMessagesResponse = Schema.Record(Schema.String, Schema.NullOr(MessageResponse))

/** DM and group DM channels: the user's list, opening one, recipients, message preloads and calls. */
export class DmsApi extends HttpApiGroup.make("dms").add(
  HttpApiEndpoint.get("list", "/users/@me/channels", { success: Schema.Array(ChannelResponse), error: ApiErrors }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.post("create", "/users/@me/channels", {
    payload: CreatePrivateChannelRequest,
    success: ChannelResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.post("preload", "/users/@me/channels/messages/preload", {
    payload: PreloadMessagesRequest,
    success: PreloadMessagesResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.post("preloadMessages", "/users/@me/preload-messages", {
    payload: PreloadMessagesRequest,
    success: PreloadMessagesResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.put("addRecipient", "/channels/:channel_id/recipients/:user_id", { params: RecipientPath, error: ApiErrors }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.delete("removeRecipient", "/channels/:channel_id/recipients/:user_id", {
    params: RecipientPath,
    query: { silent: Schema.optional(Schema.String), delete_messages: Schema.optional(Schema.String) },
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.get("call", "/channels/:channel_id/call", {
    params: ChannelPath,
    success: CallEligibilityResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly),
  HttpApiEndpoint.patch("updateCall", "/channels/:channel_id/call", {
    params: ChannelPath,
    payload: CallUpdateRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly),
  HttpApiEndpoint.post("ring", "/channels/:channel_id/call/ring", { params: ChannelPath, payload: CallRingRequest, error: ApiErrors }).annotate(Credentials, userOnly),
  HttpApiEndpoint.post("stopRinging", "/channels/:channel_id/call/stop-ringing", {
    params: ChannelPath,
    payload: CallRingRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly),
  HttpApiEndpoint.post("endCall", "/channels/:channel_id/call/end", { params: ChannelPath, error: ApiErrors }).annotate(Credentials, userOnly)
).middleware(UserAuthentication) {}
