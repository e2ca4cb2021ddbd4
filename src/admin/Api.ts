import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { ProcessSnapshot } from "../../shards/Stats.ts"
import { AdminAuthentication } from "../http/Authentication.ts"
import { BoundedText, SuccessResponse } from "../model/Common.ts"
import { GuildId, Snowflake } from "../model/Ids.ts"
import { ApiErrors } from "../model/Errors.ts"
import { AdminUserResult } from "./users/View.ts"

const Acls = Schema.Array(BoundedText(1, 64)).check(Schema.isMaxLength(64))

export const CreateApiKeyRequest = Schema.Struct({
  name: BoundedText(1, 100),
  acls: Acls,
  expires_in_days: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 3650 })))
})

export const ApiKeyResponse = Schema.Struct({
  key_id: Schema.String,
  name: Schema.String,
  acls: Schema.Array(Schema.String),
  created_at: Schema.String,
  expires_at: Schema.NullOr(Schema.String)
})
export type ApiKeyResponse = typeof ApiKeyResponse.Type

export const CreateAdminApiKeyResponse = Schema.Struct({ ...ApiKeyResponse.fields, key: Schema.String })

export const SetUserAclsRequest = Schema.Struct({ user_id: Snowflake, acls: Acls })

export const AdminAuditLogResponse = Schema.Struct({
  log_id: Schema.String,
  admin_user_id: Schema.String,
  action: Schema.String,
  audit_log_reason: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  metadata: Schema.Record(Schema.String, Schema.String),
  target_id: Schema.String,
  target_type: Schema.String
})
export type AdminAuditLogResponse = typeof AdminAuditLogResponse.Type

export const AuditLogsListResponse = Schema.Struct({ logs: Schema.Array(AdminAuditLogResponse), total: Schema.Int })

const Limit = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))
const Offset = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000_000 }))

export const AuditLogsRequest = Schema.Struct({
  limit: Schema.optional(Limit),
  offset: Schema.optional(Offset),
  admin_user_id: Schema.optional(Snowflake),
  target_id: Schema.optional(Schema.String.check(Schema.isMaxLength(64))),
  action: Schema.optional(Schema.String.check(Schema.isMaxLength(64)))
})

export const AuditLogsSearchRequest = Schema.Struct({
  limit: Schema.optional(Limit),
  offset: Schema.optional(Offset),
  admin_user_id: Schema.optional(Snowflake),
  target_id: Schema.optional(Schema.String.check(Schema.isMaxLength(64))),
  query: Schema.optional(Schema.String.check(Schema.isMaxLength(200))),
  sort_by: Schema.optional(Schema.Literals(["created_at", "action"])),
  sort_order: Schema.optional(Schema.Literals(["asc", "desc"]))
})
export type AuditLogsSearchRequest = typeof AuditLogsSearchRequest.Type

const GuildIdRequest = Schema.Struct({ guild_id: GuildId })

export const NodeStatsResponse = Schema.Struct({
  status: Schema.String,
  sessions: Schema.Int,
  guilds: Schema.Int,
  presences: Schema.Int,
  calls: Schema.Int,
  memory: Schema.Struct({ total: Schema.Int, processes: Schema.Int, system: Schema.Int }),
  process_count: Schema.Int,
  process_limit: Schema.Int,
  uptime_seconds: Schema.Int,
  processes: Schema.Array(ProcessSnapshot.mapFields(({ heaviest: _, ...rest }) => rest))
})

export const GuildMemoryStats = Schema.Struct({
  guild_id: Schema.String,
  guild_name: Schema.String,
  guild_icon: Schema.NullOr(Schema.String),
  memory: Schema.Int,
  member_count: Schema.Int,
  session_count: Schema.Int,
  presence_count: Schema.Int
})

export class AdminApi extends HttpApiGroup.make("admin").add(
  HttpApiEndpoint.post("createApiKey", "/admin/api-keys", {
    payload: CreateApiKeyRequest,
    success: CreateAdminApiKeyResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.get("listApiKeys", "/admin/api-keys", { success: Schema.Array(ApiKeyResponse), error: ApiErrors }),
  HttpApiEndpoint.delete("deleteApiKey", "/admin/api-keys/:keyId", {
    params: { keyId: Snowflake },
    success: SuccessResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.get("me", "/admin/users/me", { success: AdminUserResult, error: ApiErrors }),
  HttpApiEndpoint.post("setUserAcls", "/admin/users/set-acls", {
    payload: SetUserAclsRequest,
    success: AdminUserResult,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("auditLogs", "/admin/audit-logs", {
    payload: AuditLogsRequest,
    success: AuditLogsListResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("searchAuditLogs", "/admin/audit-logs/search", {
    payload: AuditLogsSearchRequest,
    success: AuditLogsListResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("reloadGuild", "/admin/guilds/reload", {
    payload: GuildIdRequest,
    success: SuccessResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("shutdownGuild", "/admin/guilds/shutdown", {
    payload: GuildIdRequest,
    success: SuccessResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("reloadAll", "/admin/gateway/reload-all", {
    payload: Schema.Struct({ guild_ids: Schema.Array(GuildId).check(Schema.isMaxLength(10_000)) }),
    success: Schema.Struct({ count: Schema.Int }),
    error: ApiErrors
  }),
  HttpApiEndpoint.get("gatewayStats", "/admin/gateway/stats", { success: NodeStatsResponse, error: ApiErrors }),
  HttpApiEndpoint.post("memoryStats", "/admin/gateway/memory-stats", {
    payload: Schema.Struct({ limit: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))) }),
    success: Schema.Struct({ guilds: Schema.Array(GuildMemoryStats) }),
    error: ApiErrors
  })
).middleware(AdminAuthentication) {}
