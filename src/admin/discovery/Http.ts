import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { adminReviewDiscovery, type ReviewOutcome } from "../../../shards/guild/operations/AdminDiscovery.ts"
import { DiscoveryRepo } from "../../discovery/Repo.ts"
import { Actors } from "../../guilds/Actors.ts"
import { Api } from "../../http/Api.ts"
import { CurrentOperator } from "../../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { BadRequest, NotFound } from "../../model/Errors.ts"
import type { GuildId } from "../../model/Ids.ts"
import { AdminRepo } from "../Repo.ts"

const PAGE = 50

const notFound = () => new NotFound({ code: "DISCOVERY_APPLICATION_NOT_FOUND", message: "The guild has not applied to discovery" })
const reviewed = () => new BadRequest({ code: "DISCOVERY_APPLICATION_ALREADY_REVIEWED", message: "The application was reviewed already" })

/** Which status each review starts from, and its admin audit action. */
const REVIEWS: Record<ReviewOutcome, { readonly from: string; readonly action: string }> = {
  approved: { from: "pending", action: "approve_discovery_application" },
  rejected: { from: "pending", action: "reject_discovery_application" },
  removed: { from: "approved", action: "remove_from_discovery" }
}

const AdminDiscoveryHandlers = HttpApiBuilder.group(Api, "adminDiscovery", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const repo = yield* DiscoveryRepo
    const actors = yield* Actors
    const admin = yield* AdminRepo

    /**
     * The review, through the guild's actor (the status and the DISCOVERABLE
     * feature change together), then the admin audit entry; answered with the
     * application as it now is.
     */
    const review = (guildId: GuildId, outcome: ReviewOutcome, reason: string | null) =>
      Effect.gen(function*() {
        const operator = yield* CurrentOperator
        const before = yield* repo.application(guildId)
        const { from, action } = REVIEWS[outcome]
        // Removing concerns a listed guild only: anything else is no listing to remove.
        if (before === undefined || (outcome === "removed" && before.status !== from)) return yield* notFound()
        if (before.status !== from) return yield* reviewed()
        yield* actors.write(guildId, adminReviewDiscovery, { outcome, reason }, { actorId: operator.id, reason })
        yield* admin.audit({
          adminId: operator.id,
          action,
          targetType: "guild",
          targetId: guildId,
          metadata: reason === null ? {} : { reason }
        })
        const after = yield* repo.application(guildId)
        return after === undefined ? yield* notFound() : after
      })

    return handlers
      .handle("listApplications", ({ query }) =>
        repo.list({ status: query.status ?? "pending", limit: query.limit ?? PAGE, cursor: query.cursor }))
      .handle("approve", ({ params, payload }) => review(params.guild_id, "approved", payload.reason ?? null))
      .handle("reject", ({ params, payload }) => review(params.guild_id, "rejected", payload.reason))
      .handle("remove", ({ params, payload }) => review(params.guild_id, "removed", payload.reason))
  })))

/** Staff review of discovery applications, with the listing's repository. */
export const AdminDiscoveryHttp = perRequestMiddlewaresOnly(AdminDiscoveryHandlers).pipe(Layer.provide(DiscoveryRepo.layer))
