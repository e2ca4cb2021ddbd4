import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { NotFound, TooManyRequests } from "../model/Errors.ts"
import { AppConfig } from "../platform/Config.ts"
import { isoTimestamp } from "../platform/Timestamps.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { issueDownload } from "./Downloads.ts"
import { ArchivesRepo } from "./Repo.ts"
import { archiveSettings } from "./Settings.ts"
import { harvestView } from "./Views.ts"

const unknownHarvest = () => new NotFound({ code: "UNKNOWN_HARVEST", message: "Unknown harvest" })

/**
 * A user's data export: an archive of themself (Job.ts writes it), one at a
 * time and at most one per HARVEST_COOLDOWN_HOURS. Another user's harvest is
 * unknown to them.
 */
const HarvestHandlers = HttpApiBuilder.group(Api, "harvest", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const repo = yield* ArchivesRepo
    const snowflakes = yield* Snowflakes
    const { harvestCooldownHours, downloadUrlSeconds } = yield* archiveSettings
    const context = yield* Effect.context<ArchivesRepo | AppConfig>()

    const mine = (harvestId: string) =>
      Effect.flatMap(CurrentUser, (me) =>
        Effect.flatMap(repo.find(harvestId), (row) =>
          row === undefined || !row.harvest || row.subject_id !== me.id ? Effect.fail(unknownHarvest()) : Effect.succeed(row)))

    return handlers
      .handle("create", () =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const created = yield* repo.createHarvest(snowflakes.next(), me.id, harvestCooldownHours)
          if ("retryAfter" in created) {
            return yield* new TooManyRequests({
              code: "RATE_LIMITED",
              message: `A data export was asked for recently; ask again in ${created.retryAfter} seconds`,
              retry_after: created.retryAfter,
              global: false
            })
          }
          return { harvest_id: created.id, status: created.status, created_at: isoTimestamp(created.created_at) }
        }))
      .handle("latest", () =>
        Effect.flatMap(CurrentUser, (me) => Effect.map(repo.latestHarvest(me.id), (row) => (row === undefined ? null : harvestView(row)))))
      .handle("get", ({ params }) => Effect.map(mine(params.harvestId), harvestView))
      .handle("download", ({ params }) =>
        Effect.gen(function*() {
          const row = yield* mine(params.harvestId)
          const { url, expiresAt } = yield* issueDownload(row, downloadUrlSeconds).pipe(Effect.provideContext(context))
          return { download_url: url, expires_at: isoTimestamp(expiresAt) }
        }))
  })))

export const HarvestHttp = perRequestMiddlewaresOnly(HarvestHandlers).pipe(Layer.provide([ArchivesRepo.layer, RateLimitLive]))
