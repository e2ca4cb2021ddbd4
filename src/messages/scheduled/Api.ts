import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { Credentials, UserAuthentication, userOnly } from "../../http/Authentication.ts"
import { Snowflake } from "../../model/Ids.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { ScheduledMessageResponse } from "../../model/ScheduledMessages.ts"
import { ScheduledMessageRequest } from "./Schemas.ts"
import { ChannelPath } from "../../http/Paths.ts"

const scheduledPath = { scheduled_message_id: Snowflake }

/** Scheduled messages: a message stored now and sent by the server when it is due (ScheduledSender.ts). */
export class ScheduledMessagesApi extends HttpApiGroup.make("scheduledMessages").add(
  HttpApiEndpoint.post("schedule", "/channels/:channel_id/messages/schedule", {
    params: ChannelPath,
    payload: ScheduledMessageRequest,
    success: ScheduledMessageResponse.pipe(HttpApiSchema.status(201)),
    error: ApiErrors
  }).annotate(Credentials, userOnly),
  HttpApiEndpoint.get("list", "/users/@me/scheduled-messages", {
    success: Schema.Array(ScheduledMessageResponse),
    error: ApiErrors
  }).annotate(Credentials, userOnly),
  HttpApiEndpoint.get("get", "/users/@me/scheduled-messages/:scheduled_message_id", {
    params: scheduledPath,
    success: ScheduledMessageResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly),
  HttpApiEndpoint.patch("update", "/users/@me/scheduled-messages/:scheduled_message_id", {
    params: scheduledPath,
    payload: ScheduledMessageRequest,
    success: ScheduledMessageResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly),
  HttpApiEndpoint.delete("delete", "/users/@me/scheduled-messages/:scheduled_message_id", {
    params: scheduledPath,
    error: ApiErrors
  }).annotate(Credentials, userOnly)
).middleware(UserAuthentication) {}
