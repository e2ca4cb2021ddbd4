import { Effect } from "effect"
import { type Forbidden, missingAccess, type NotFound } from "../../src/model/Errors.ts"
import type { GuildState } from "./State.ts"
import { renderView } from "./Views.ts"
import { mapAnswered } from "../actors/Answered.ts"

/**
 * A read of a guild as a function of its state. The actor answers reads for
 * callers in other processes; a caller in the actor's own process applies the
 * same function to the state the actor published (src/guilds/Actors.ts) and
 * skips the mailbox. One definition serves both, so the paths cannot disagree.
 */
export type GuildRead<A> = (state: GuildState) => Effect.Effect<A, Forbidden | NotFound>

const asMember = (state: GuildState, userId: string): Effect.Effect<GuildState, Forbidden> =>
  state.members.has(userId) ? Effect.succeed(state) : Effect.fail(missingAccess())

/** The guild as a member sees it (GuildResponse JSON, rendered once per state and viewer's permissions: Views.ts). */
export const view = (userId: string): GuildRead<string> => (state) =>
  mapAnswered(asMember(state, userId), (s) => renderView(s, userId))
