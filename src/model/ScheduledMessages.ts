import { Schema } from "effect"
import { MessageCreateRequest } from "./MessageRequests.ts"

export const ScheduledMessageStatus = Schema.Literals(["pending", "invalid", "scheduled", "sent", "failed", "cancelled"])
export type ScheduledMessageStatus = typeof ScheduledMessageStatus.Type

/** ScheduledMessageResponseSchema; `payload` is the create request as it will be (or was) sent. */
export const ScheduledMessageResponse = Schema.Struct({
  id: Schema.String,
  channel_id: Schema.String,
  scheduled_at: Schema.String,
  scheduled_local_at: Schema.String,
  timezone: Schema.String,
  status: ScheduledMessageStatus,
  status_reason: Schema.NullOr(Schema.String),
  payload: MessageCreateRequest,
  created_at: Schema.String,
  invalidated_at: Schema.NullOr(Schema.String)
})
export type ScheduledMessageResponse = typeof ScheduledMessageResponse.Type
