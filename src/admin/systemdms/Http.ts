import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../http/Api.ts"
import { CurrentOperator } from "../../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { BadRequest, invalidField, NotFound } from "../../model/Errors.ts"
import { Snowflakes } from "../../platform/Snowflake.ts"
import { AdminRepo } from "../Repo.ts"
import { SystemDmJobs } from "./JobsRepo.ts"

const unknownJob = () => new NotFound({ code: "UNKNOWN_SYSTEM_DM_JOB", message: "Unknown system DM job" })

const AdminSystemDmsHandlers = HttpApiBuilder.group(Api, "adminSystemDms", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const admin = yield* AdminRepo
    const jobs = yield* SystemDmJobs
    const snowflakes = yield* Snowflakes

    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const { registration_start: start, registration_end: end } = payload
          if (start != null && end != null && Date.parse(start) > Date.parse(end)) {
            return yield* invalidField("registration_end", "INVALID_DATE_RANGE", "The range ends before it starts")
          }
          const job = yield* jobs.create({ id: snowflakes.next(), adminId: op.id, request: payload })
          yield* admin.audit({
            adminId: op.id,
            action: "system_dm_job.create",
            targetType: "system_dm_job",
            targetId: job.job_id,
            metadata: { target_count: String(job.target_count), excluded_guild_ids: job.excluded_guild_ids.join(",") }
          })
          return job
        }))
      .handle("list", () => Effect.map(jobs.list, (list) => ({ jobs: list })))
      .handle("approve", ({ params }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const approved = yield* jobs.approve(params.job_id, op.id)
          if (approved === undefined) {
            const job = yield* jobs.find(params.job_id)
            if (job === undefined) return yield* unknownJob()
            return yield* new BadRequest({ code: "SYSTEM_DM_JOB_NOT_PENDING", message: `The job is ${job.status}, not waiting for approval` })
          }
          yield* admin.audit({
            adminId: op.id,
            action: "system_dm_job.approve",
            targetType: "system_dm_job",
            targetId: approved.job_id,
            metadata: { target_count: String(approved.target_count) }
          })
          return approved
        }))
  })))

/** /admin/system-dm-jobs: create, list, approve; Job.ts sends them. */
export const AdminSystemDmsHttp = perRequestMiddlewaresOnly(AdminSystemDmsHandlers).pipe(Layer.provide(SystemDmJobs.layer))
