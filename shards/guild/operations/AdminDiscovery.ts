import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { type Decision, write, type WriteContext } from "../Definitions.ts"
import type { GuildState } from "../State.ts"
import { discoveryChange } from "./Discovery.ts"

/** What an operator's review makes of an application (guild_discovery.status). */
export const ReviewOutcome = Schema.Literals(["approved", "rejected", "removed"])
export type ReviewOutcome = typeof ReviewOutcome.Type

/**
 * The application's row as the review leaves it. The caller checked its
 * status; the condition keeps a review that lost a race with another from
 * overwriting it.
 */
const reviewRow = (guildId: string, outcome: ReviewOutcome, reason: string | null, at: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.asVoid(outcome === "removed"
      ? sql`UPDATE guild_discovery SET status = 'removed', removed_at = ${at}, removal_reason = ${reason}
            WHERE guild_id = ${guildId} AND status = 'approved'`
      : sql`UPDATE guild_discovery SET status = ${outcome}, reviewed_at = ${at}, review_reason = ${reason}
            WHERE guild_id = ${guildId} AND status = 'pending'`))

const review = (state: GuildState, outcome: ReviewOutcome, reason: string | null, context: WriteContext): Decision<null> =>
  discoveryChange(state, outcome === "approved", context, reviewRow(context.guildId, outcome, reason, new Date(context.now).toISOString()))

/**
 * POST /admin/discovery/applications/{id}/approve and /reject, and
 * /admin/discovery/guilds/{id}/remove: the application's new status, and the
 * DISCOVERABLE feature on the guild while it is listed. An operator's act (the
 * ACL was checked at HTTP), so no member permission applies.
 */
export const adminReviewDiscovery = write(
  "AdminReviewDiscovery",
  { outcome: ReviewOutcome, reason: Schema.NullOr(Schema.String) },
  Schema.Null,
  (state, { outcome, reason }, context) => Effect.succeed(review(state, outcome, reason, context))
)

export const adminDiscoveryWrites = [adminReviewDiscovery] as const
