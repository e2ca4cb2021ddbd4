import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GuildRepo } from "../../../shards/guild/Repo.ts"
import { Api } from "../../http/Api.ts"
import { CurrentOperator } from "../../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { invalidField, unknown } from "../../model/Errors.ts"
import { Snowflakes } from "../../platform/Snowflake.ts"
import { UsersRepo } from "../../users/Repo.ts"
import { AdminRepo } from "../Repo.ts"
import type { IndexType } from "./Api.ts"
import { SearchRefreshJobs } from "./JobsRepo.ts"

const AdminSearchHandlers = HttpApiBuilder.group(Api, "adminSearch", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const admin = yield* AdminRepo
    const jobs = yield* SearchRefreshJobs
    const guilds = yield* GuildRepo
    const users = yield* UsersRepo
    const snowflakes = yield* Snowflakes

    /** The guild or user the refresh is of (null: everything), which must exist. */
    const subjectOf = (indexType: IndexType, guildId: string | undefined, userId: string | undefined) =>
      Effect.gen(function*() {
        switch (indexType) {
          case "all":
            return null
          case "guild":
            if (guildId === undefined) return yield* invalidField("guild_id", "BASE_TYPE_REQUIRED", "A guild refresh names its guild")
            if (!(yield* guilds.exists(guildId))) return yield* unknown("GUILD")
            return guildId
          case "user":
            if (userId === undefined) return yield* invalidField("user_id", "BASE_TYPE_REQUIRED", "A user refresh names its user")
            if ((yield* users.findById(userId)) === undefined) return yield* unknown("USER")
            return userId
        }
      })

    return handlers
      .handle("refreshIndex", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const subjectId = yield* subjectOf(payload.index_type, payload.guild_id, payload.user_id)
          const jobId = snowflakes.next()
          yield* jobs.create({ id: jobId, adminId: op.id, indexType: payload.index_type, subjectId })
          yield* admin.audit({
            adminId: op.id,
            action: "search.refresh_index",
            targetType: "search_index",
            targetId: subjectId ?? "all",
            metadata: { index_type: payload.index_type, job_id: jobId }
          })
          return { success: true as const, job_id: jobId }
        }))
      .handle("refreshStatus", ({ payload }) =>
        Effect.map(jobs.progress(payload.job_id), (progress) => progress ?? { status: "not_found" as const }))
  })))

/** POST /admin/search/*: a refresh job queued (Job.ts carries it out) and its progress. */
export const AdminSearchHttp = perRequestMiddlewaresOnly(AdminSearchHandlers).pipe(Layer.provide(SearchRefreshJobs.layer))
