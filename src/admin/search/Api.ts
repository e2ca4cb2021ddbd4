import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AdminAuthentication } from "../../http/Authentication.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { GuildId, Snowflake, UserId } from "../../model/Ids.ts"

// POST /admin/search/*: part B's RefreshSearchIndexResponse; the job carried out by Job.ts.

/** A guild's messages, a user's (those they wrote), or every search index whole. */
export const IndexType = Schema.Literals(["guild", "user", "all"])
export type IndexType = typeof IndexType.Type

export const RefreshSearchIndexRequest = Schema.Struct({
  index_type: IndexType,
  guild_id: Schema.optional(GuildId),
  user_id: Schema.optional(UserId)
})

export const RefreshSearchIndexResponse = Schema.Struct({ success: Schema.Literal(true), job_id: Schema.String })

export const RefreshStatusRequest = Schema.Struct({ job_id: Snowflake })

/**
 * A job's progress: `processed` of `total` messages (guild, user) or indexes
 * (all); `total` is null until the job has counted them.
 */
export const RefreshProgress = Schema.Struct({
  job_id: Schema.String,
  status: Schema.Literals(["in_progress", "completed", "failed"]),
  index_type: IndexType,
  guild_id: Schema.optional(Schema.String),
  user_id: Schema.optional(Schema.String),
  total: Schema.NullOr(Schema.Int),
  processed: Schema.Int,
  progress_percent: Schema.Number,
  started_at: Schema.String,
  completed_at: Schema.optional(Schema.String),
  failed_at: Schema.optional(Schema.String),
  error: Schema.optional(Schema.String)
})
export type RefreshProgress = typeof RefreshProgress.Type

export const RefreshStatusResponse = Schema.Union([RefreshProgress, Schema.Struct({ status: Schema.Literal("not_found") })])

export class AdminSearchApi extends HttpApiGroup.make("adminSearch").add(
  HttpApiEndpoint.post("refreshIndex", "/admin/search/refresh-index", {
    payload: RefreshSearchIndexRequest,
    success: RefreshSearchIndexResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("refreshStatus", "/admin/search/refresh-status", {
    payload: RefreshStatusRequest,
    success: RefreshStatusResponse,
    error: ApiErrors
  })
).middleware(AdminAuthentication) {}
