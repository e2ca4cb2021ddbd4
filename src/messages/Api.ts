import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { Credentials, UserAuthentication, userOnly, userOrBot } from "../http/Authentication.ts"
import { AttachmentId, Snowflake } from "../model/Ids.ts"
import { ApiErrors } from "../model/Errors.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"
import {
  BulkDeleteMessagesRequest,
  MessageAckRequest,
  MessageCreateRequest,
  MessageLimit,
  MessageUpdateRequest
} from "../model/MessageRequests.ts"
import { MessageResponse } from "../model/Messages.ts"
import { parserLimits } from "./attachments/Uploads.ts"
import { ChannelPath, MessagePath } from "../http/Paths.ts"

/**
 * A create with files: `payload_json` and `files[n]`, read as a stream
 * (MessageUploads.ts) with the body limit of attachments instead of the
 * server's 1 MB, for this route alone.
 */
const MessageUpload = Schema.Struct({ payload_json: Schema.optional(Schema.String) }).pipe(
  HttpApiSchema.asMultipartStream(parserLimits)
)


/** Per user (conventions.md, Rate limits). */
const bucket = (name: string, limit: number, windowSeconds: number) => ({
  name: `messages.${name}`,
  limit,
  windowMillis: windowSeconds * 1000
})

/** Messages of guild channels: sending, paging, editing, deleting, typing, read states. */
export class MessagesApi extends HttpApiGroup.make("messages").add(
  HttpApiEndpoint.get("list", "/channels/:channel_id/messages", {
    params: ChannelPath,
    query: {
      limit: Schema.optional(MessageLimit),
      before: Schema.optional(Snowflake),
      after: Schema.optional(Snowflake),
      around: Schema.optional(Snowflake)
    },
    success: Schema.Array(MessageResponse),
    error: ApiErrors
  }).annotate(Credentials, userOrBot).annotate(RateLimitBucket, bucket("list", 100, 10)).middleware(RateLimit),
  HttpApiEndpoint.post("create", "/channels/:channel_id/messages", {
    params: ChannelPath,
    payload: [MessageCreateRequest, MessageUpload],
    success: MessageResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot).annotate(RateLimitBucket, bucket("create", 20, 10)).middleware(RateLimit),
  HttpApiEndpoint.get("get", "/channels/:channel_id/messages/:message_id", {
    params: MessagePath,
    success: MessageResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.patch("edit", "/channels/:channel_id/messages/:message_id", {
    params: MessagePath,
    payload: MessageUpdateRequest,
    success: MessageResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.delete("delete", "/channels/:channel_id/messages/:message_id", { params: MessagePath, error: ApiErrors }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.delete("deleteAttachment", "/channels/:channel_id/messages/:message_id/attachments/:attachment_id", {
    params: { ...MessagePath, attachment_id: AttachmentId },
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.post("bulkDelete", "/channels/:channel_id/messages/bulk-delete", {
    params: ChannelPath,
    payload: BulkDeleteMessagesRequest,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.post("typing", "/channels/:channel_id/typing", { params: ChannelPath, error: ApiErrors }).annotate(Credentials, userOrBot)
    .annotate(RateLimitBucket, bucket("typing", 20, 10)).middleware(RateLimit),
  HttpApiEndpoint.post("ack", "/channels/:channel_id/messages/:message_id/ack", {
    params: MessagePath,
    payload: MessageAckRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly)
).middleware(UserAuthentication) {}
