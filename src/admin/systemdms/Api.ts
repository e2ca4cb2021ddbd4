import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AdminAuthentication } from "../../http/Authentication.ts"
import { BoundedText } from "../../model/Common.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { GuildId, Snowflake } from "../../model/Ids.ts"
import { MAX_CONTENT } from "../../model/MessageRequests.ts"

// /admin/system-dm-jobs: part B's SystemDmJobResponse; the job carried out by Job.ts.

/** An instant as ISO 8601 with its offset ("2026-01-02T03:04:05Z"), compared as such. */
const Instant = Schema.String.check(
  Schema.isPattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/, {
    message: "INVALID_DATE_FORMAT: Expected an ISO 8601 date and time with its offset"
  }),
  Schema.makeFilter((s: string) => !Number.isNaN(Date.parse(s)) || "INVALID_DATE_FORMAT: Not a date")
)

export const CreateSystemDmJobRequest = Schema.Struct({
  // A DM's content, so a message's bounds.
  content: BoundedText(1, MAX_CONTENT, "CONTENT_EXCEEDS_MAX_LENGTH"),
  excluded_guild_ids: Schema.optional(Schema.Array(GuildId).check(Schema.isMaxLength(1000))),
  registration_start: Schema.optional(Schema.NullOr(Instant)),
  registration_end: Schema.optional(Schema.NullOr(Instant))
})
export type CreateSystemDmJobRequest = typeof CreateSystemDmJobRequest.Type

/** pending (waiting for approval), approved (waiting for a process), running, completed, failed. */
export const SystemDmJobStatus = Schema.Literals(["pending", "approved", "running", "completed", "failed"])
export type SystemDmJobStatus = typeof SystemDmJobStatus.Type

export const SystemDmJobResponse = Schema.Struct({
  job_id: Schema.String,
  content: Schema.String,
  created_at: Schema.String,
  approved_at: Schema.NullOr(Schema.String),
  excluded_guild_ids: Schema.Array(Schema.String),
  /** Estimated when the job is made, exact once it runs. */
  target_count: Schema.Int,
  sent_count: Schema.Int,
  failed_count: Schema.Int,
  last_error: Schema.NullOr(Schema.String),
  registration_start: Schema.NullOr(Schema.String),
  registration_end: Schema.NullOr(Schema.String),
  status: SystemDmJobStatus
})
export type SystemDmJobResponse = typeof SystemDmJobResponse.Type

export const SystemDmJobsListResponse = Schema.Struct({ jobs: Schema.Array(SystemDmJobResponse) })

export class AdminSystemDmsApi extends HttpApiGroup.make("adminSystemDms").add(
  HttpApiEndpoint.post("create", "/admin/system-dm-jobs", {
    payload: CreateSystemDmJobRequest,
    success: SystemDmJobResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.get("list", "/admin/system-dm-jobs", { success: SystemDmJobsListResponse, error: ApiErrors }),
  HttpApiEndpoint.post("approve", "/admin/system-dm-jobs/:job_id/approve", {
    params: { job_id: Snowflake },
    success: SystemDmJobResponse,
    error: ApiErrors
  })
).middleware(AdminAuthentication) {}
