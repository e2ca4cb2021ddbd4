import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOrBot } from "../http/Authentication.ts"
import { Snowflake } from "../model/Ids.ts"
import { ApiErrors } from "../model/Errors.ts"
import { UserPartialResponse } from "../model/Users.ts"
import { GuildPath } from "../http/Paths.ts"

/** AuditLogActionType (part C). */
export const AUDIT_LOG_ACTION_TYPES: ReadonlySet<number> = new Set([
  1, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23, 24, 25, 26, 27, 28, 30, 31, 32, 40, 41, 42, 50, 51, 52, 60, 61, 62, 90,
  91, 92, 72, 73, 74, 75
])

const ActionType = Schema.Int.check(
  Schema.makeFilter((n: number) => AUDIT_LOG_ACTION_TYPES.has(n) || "INVALID_ENUM_VALUE: Not an audit log action type")
)

export const AuditLogChange = Schema.Struct({
  key: Schema.String,
  old_value: Schema.optional(Schema.Unknown),
  new_value: Schema.optional(Schema.Unknown)
})

export const GuildAuditLogEntryResponse = Schema.Struct({
  id: Schema.String,
  action_type: Schema.Int,
  user_id: Schema.NullOr(Schema.String),
  target_id: Schema.NullOr(Schema.String),
  reason: Schema.optional(Schema.String),
  options: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
  changes: Schema.Array(AuditLogChange)
})
export type GuildAuditLogEntryResponse = typeof GuildAuditLogEntryResponse.Type

export const AuditLogWebhookResponse = Schema.Struct({
  id: Schema.String,
  type: Schema.Int,
  guild_id: Schema.optional(Schema.NullOr(Schema.String)),
  channel_id: Schema.optional(Schema.NullOr(Schema.String)),
  name: Schema.String,
  avatar_hash: Schema.optional(Schema.NullOr(Schema.String))
})

export const GuildAuditLogListResponse = Schema.Struct({
  audit_log_entries: Schema.Array(GuildAuditLogEntryResponse),
  users: Schema.Array(UserPartialResponse),
  webhooks: Schema.Array(AuditLogWebhookResponse)
})

/** conventions.md, Paging: `limit` up to 100 (default 50), `before` or `after`, `user_id`, `action_type`. */
export const AuditLogQuery = {
  limit: Schema.optional(Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 100 }))),
  before: Schema.optional(Snowflake),
  after: Schema.optional(Snowflake),
  user_id: Schema.optional(Snowflake),
  action_type: Schema.optional(Schema.NumberFromString.pipe(Schema.decodeTo(ActionType)))
}

export class AuditLogApi extends HttpApiGroup.make("auditLog").add(
  HttpApiEndpoint.get("list", "/guilds/:guild_id/audit-logs", {
    params: GuildPath,
    query: AuditLogQuery,
    success: GuildAuditLogListResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot)
).middleware(UserAuthentication) {}
