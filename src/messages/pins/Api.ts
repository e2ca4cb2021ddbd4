import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOrBot } from "../../http/Authentication.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { IsoTimestamp } from "../../model/MessageRequests.ts"
import { MessageResponse } from "../../model/Messages.ts"
import { ChannelPath, MessagePath } from "../../http/Paths.ts"


/** `limit` 1..50 (reference/operations.md); it arrives as text. */
const PinLimit = Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 50 }))
export const DEFAULT_PIN_LIMIT = 50


/** ChannelPinsResponse (reference/schemas.md). */
export const ChannelPinsResponse = Schema.Struct({
  items: Schema.Array(Schema.Struct({ message: MessageResponse, pinned_at: Schema.String })),
  has_more: Schema.Boolean
})

/** Pinned messages of guild channels. */
export class PinsApi extends HttpApiGroup.make("pins").add(
  HttpApiEndpoint.get("list", "/channels/:channel_id/messages/pins", {
    params: ChannelPath,
    query: { limit: Schema.optional(PinLimit), before: Schema.optional(IsoTimestamp) },
    success: ChannelPinsResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.put("pin", "/channels/:channel_id/pins/:message_id", { params: MessagePath, error: ApiErrors }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.delete("unpin", "/channels/:channel_id/pins/:message_id", { params: MessagePath, error: ApiErrors }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.post("ack", "/channels/:channel_id/pins/ack", { params: ChannelPath, error: ApiErrors }).annotate(Credentials, userOrBot)
).middleware(UserAuthentication) {}
