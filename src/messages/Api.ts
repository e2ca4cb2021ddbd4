import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { UserAuthentication } from "../http/Authentication.ts"
import { Snowflake } from "../model/Common.ts"
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

/**
 * A create with files: `payload_json` and `files[n]`, read as a stream
 * (MessageUploads.ts) with the body limit of attachments instead of the
 * server's 1 MB, for this route alone.
 */
const MessageUpload = Schema.Struct({ payload_json: Schema.optional(Schema.String) }).pipe(
  HttpApiSchema.asMultipartStream(parserLimits)
)

const channelPath = { channel_id: Snowflake }
const messagePath = { channel_id: Snowflake, message_id: Snowflake }

/** Per user (conventions.md, Rate limits). */
const bucket = (name: string, limit: number, windowSeconds: number) => ({
  name: `messages.${name}`,
  limit,
  windowMillis: windowSeconds * 1000
})

/** Messages of guild channels: sending, paging, editing, deleting, typing, read states. */
export class MessagesApi extends HttpApiGroup.make("messages").add(
  HttpApiEndpoint.get("list", "/channels/:channel_id/messages", {
    params: channelPath,
    query: {
      limit: Schema.optional(MessageLimit),
      before: Schema.optional(Snowflake),
      after: Schema.optional(Snowflake),
      around: Schema.optional(Snowflake)
    },
    success: Schema.Array(MessageResponse),
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("list", 100, 10)).middleware(RateLimit),
  HttpApiEndpoint.post("create", "/channels/:channel_id/messages", {
    params: channelPath,
    payload: [MessageCreateRequest, MessageUpload],
    success: MessageResponse,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("create", 20, 10)).middleware(RateLimit),
  HttpApiEndpoint.get("get", "/channels/:channel_id/messages/:message_id", {
    params: messagePath,
    success: MessageResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.patch("edit", "/channels/:channel_id/messages/:message_id", {
    params: messagePath,
    payload: MessageUpdateRequest,
    success: MessageResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.delete("delete", "/channels/:channel_id/messages/:message_id", { params: messagePath, error: ApiErrors }),
  HttpApiEndpoint.delete("deleteAttachment", "/channels/:channel_id/messages/:message_id/attachments/:attachment_id", {
    params: { ...messagePath, attachment_id: Snowflake },
    error: ApiErrors
  }),
  HttpApiEndpoint.post("bulkDelete", "/channels/:channel_id/messages/bulk-delete", {
    params: channelPath,
    payload: BulkDeleteMessagesRequest,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("typing", "/channels/:channel_id/typing", { params: channelPath, error: ApiErrors })
    .annotate(RateLimitBucket, bucket("typing", 20, 10)).middleware(RateLimit),
  HttpApiEndpoint.post("ack", "/channels/:channel_id/messages/:message_id/ack", {
    params: messagePath,
    payload: MessageAckRequest,
    error: ApiErrors
  })
).middleware(UserAuthentication) {}
