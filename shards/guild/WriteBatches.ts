import type { Effect, Scope } from "effect"
import { unknown } from "../../src/model/Errors.ts"
import type { LimitReader } from "../../src/model/Limits.ts"
import * as Batches from "../actors/WriteBatches.ts"
import type { Executed, GuildError, WriteContext } from "./Definitions.ts"
import type { GuildState } from "./State.ts"

export { ActorStopped, type CommittedWrite } from "../actors/WriteBatches.ts"

/** A decided guild write, ready to commit with the others of its batch. */
export type DecidedWrite = Batches.DecidedWrite<Executed>

/** How a guild write reached the actor (actors/WriteBatches.ts). */
export type Delivery = Batches.Delivery<GuildState, WriteContext, Executed, GuildError>

/**
 * The write batches (actors/WriteBatches.ts) of one guild: a write knows its
 * guild, a write for a guild that is not there (or that a write before it
 * deleted) is answered UNKNOWN_GUILD.
 */
export const makeWriteBatches = (actor: Omit<Batches.BatchedActor<GuildState, WriteContext, Executed, GuildError>, "kind" | "context" | "missing" | "removes"> & {
  readonly guildId: string
  readonly limits: LimitReader
}): Effect.Effect<
  (write: Batches.CommittedWrite, delivery: Delivery) => Effect.Effect<string, GuildError | Batches.ActorStopped>,
  never,
  Scope.Scope
> =>
  Batches.makeWriteBatches({
    ...actor,
    kind: "guild",
    context: (write) => ({ guildId: actor.guildId, ...write, limits: actor.limits }),
    missing: () => unknown("GUILD"),
    removes: (decision) => decision.dropsGuild === true
  })
