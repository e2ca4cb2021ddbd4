import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AdminAuthentication } from "../../http/Authentication.ts"
import { BoundedText, SuccessResponse } from "../../model/Common.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { AttachmentId, ChannelId, MessageId, Snowflake, UserId } from "../../model/Ids.ts"

// POST /admin/messages/*: the shapes of the production service's MessageAdminController.

/** Messages shown around the one looked up, both sides together (production's default 50). */
const ContextLimit = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 200 }))

export const LookupMessageRequest = Schema.Struct({
  channel_id: ChannelId,
  message_id: MessageId,
  context_limit: Schema.optional(ContextLimit)
})

export const LookupMessageByAttachmentRequest = Schema.Struct({
  channel_id: ChannelId,
  attachment_id: AttachmentId,
  filename: BoundedText(1, 255),
  context_limit: Schema.optional(ContextLimit)
})

/** A message as an operator sees it in a lookup. */
export const AdminMessage = Schema.Struct({
  id: Schema.String,
  channel_id: Schema.String,
  author_id: Schema.String,
  author_username: Schema.String,
  author_discriminator: Schema.String,
  content: Schema.String,
  timestamp: Schema.String,
  attachments: Schema.Array(Schema.Struct({ filename: Schema.String, url: Schema.String }))
})
export type AdminMessage = typeof AdminMessage.Type

/** The message and its neighbours, oldest first; `message_id` null when an attachment lookup found none. */
export const LookupMessageResponse = Schema.Struct({
  message_id: Schema.NullOr(Schema.String),
  messages: Schema.Array(AdminMessage)
})

export const DeleteMessageRequest = Schema.Struct({ channel_id: ChannelId, message_id: MessageId })

export const MessageShredRequest = Schema.Struct({
  user_id: UserId,
  entries: Schema.Array(Schema.Struct({ channel_id: ChannelId, message_id: MessageId })).check(
    Schema.isMinLength(1),
    Schema.isMaxLength(100_000)
  )
})

export const MessageShredResponse = Schema.Struct({
  success: Schema.Literal(true),
  job_id: Schema.String,
  requested: Schema.optional(Schema.Int)
})

/** dry_run defaults to true, as production's: only counting unless asked to delete. */
export const DeleteAllUserMessagesRequest = Schema.Struct({ user_id: UserId, dry_run: Schema.optional(Schema.Boolean) })

export const DeleteAllUserMessagesResponse = Schema.Struct({
  success: Schema.Literal(true),
  dry_run: Schema.Boolean,
  channel_count: Schema.Int,
  message_count: Schema.Int,
  job_id: Schema.optional(Schema.String)
})

export const MessageShredStatusRequest = Schema.Struct({ job_id: Snowflake })

/** A job's progress: `processed` deleted and `skipped` of `requested`, `total` of them left after repeats and unknown channels. */
export const MessageShredProgress = Schema.Struct({
  status: Schema.Literals(["in_progress", "completed", "failed"]),
  requested: Schema.Int,
  total: Schema.Int,
  processed: Schema.Int,
  skipped: Schema.Int,
  started_at: Schema.optional(Schema.String),
  completed_at: Schema.optional(Schema.String),
  failed_at: Schema.optional(Schema.String),
  error: Schema.optional(Schema.String)
})
export type MessageShredProgress = typeof MessageShredProgress.Type

export const MessageShredStatusResponse = Schema.Union([
  MessageShredProgress,
  Schema.Struct({ status: Schema.Literal("not_found") })
])

export class AdminMessagesApi extends HttpApiGroup.make("adminMessages").add(
  HttpApiEndpoint.post("delete", "/admin/messages/delete", { payload: DeleteMessageRequest, success: SuccessResponse, error: ApiErrors }),
  HttpApiEndpoint.post("deleteAll", "/admin/messages/delete-all", {
    payload: DeleteAllUserMessagesRequest,
    success: DeleteAllUserMessagesResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("lookup", "/admin/messages/lookup", { payload: LookupMessageRequest, success: LookupMessageResponse, error: ApiErrors }),
  HttpApiEndpoint.post("lookupByAttachment", "/admin/messages/lookup-by-attachment", {
    payload: LookupMessageByAttachmentRequest,
    success: LookupMessageResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("shred", "/admin/messages/shred", { payload: MessageShredRequest, success: MessageShredResponse, error: ApiErrors }),
  HttpApiEndpoint.post("shredStatus", "/admin/messages/shred-status", {
    payload: MessageShredStatusRequest,
    success: MessageShredStatusResponse,
    error: ApiErrors
  })
).middleware(AdminAuthentication) {}
