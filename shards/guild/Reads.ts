import { Effect, Schema } from "effect"
import { GuildResponse } from "../../src/guilds/Schemas.ts"
import { type Forbidden, missingAccess, type NotFound } from "../../src/http/Errors.ts"
import { guildPermissions, type GuildState, viewFor } from "./State.ts"

/**
 * A read of a guild as a function of its state. The actor answers reads for
 * callers in other processes; a caller in the actor's own process applies the
 * same function to the state the actor published (src/guilds/Actors.ts) and
 * skips the mailbox. One definition serves both, so the paths cannot disagree.
 */
export type GuildRead<A> = (state: GuildState) => Effect.Effect<A, Forbidden | NotFound>

const asMember = (state: GuildState, userId: string): Effect.Effect<GuildState, Forbidden> =>
  state.members.has(userId) ? Effect.succeed(state) : Effect.fail(missingAccess())

const encodeGuild = Schema.encodeSync(GuildResponse)

// States are immutable (every change makes a new one), so a state is the key
// its renderings live and die with.
const rendered = new WeakMap<GuildState, Map<string, string>>()

/**
 * The guild as `userId` sees it, as GuildResponse JSON. Views differ only in
 * the viewer's permissions, so each state renders once per permission set.
 */
export const renderView = (state: GuildState, userId: string): string => {
  const permissions = guildPermissions(state, userId).toString()
  let byPermissions = rendered.get(state)
  if (byPermissions === undefined) {
    byPermissions = new Map()
    rendered.set(state, byPermissions)
  }
  let json = byPermissions.get(permissions)
  if (json === undefined) {
    json = JSON.stringify(encodeGuild(viewFor(state, userId)))
    byPermissions.set(permissions, json)
  }
  return json
}

/** The guild as a member sees it (GuildResponse JSON). */
export const view = (userId: string): GuildRead<string> => (state) =>
  Effect.map(asMember(state, userId), (s) => renderView(s, userId))
