import { Effect, Schema } from "effect"
import { GuildResponse } from "../../src/model/Guilds.ts"
import { type Forbidden, missingAccess, type NotFound } from "../../src/model/Errors.ts"
import { canView } from "./channels/ChannelPermissions.ts"
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

/** The channels `userId` cannot see (VIEW_CHANNEL, overwrites included). */
const hiddenFrom = (state: GuildState, userId: string): ReadonlySet<string> => {
  const hidden = new Set<string>()
  for (const channel of state.channels.values()) if (!canView(state, userId, channel)) hidden.add(channel.id)
  return hidden
}

/** The guild as the member `userId` sees it: their permissions, and only the channels they can see. */
export const memberView = (state: GuildState, userId: string, hidden = hiddenFrom(state, userId)): GuildResponse => {
  const view = viewFor(state, userId)
  return hidden.size === 0 ? view : { ...view, channels: (view.channels ?? []).filter((c) => !hidden.has(c.id)) }
}

/**
 * The guild as `userId` sees it, as GuildResponse JSON. Views differ only in
 * the viewer's permissions and the channels hidden from them, so each state
 * renders once per such pair.
 */
export const renderView = (state: GuildState, userId: string): string => {
  const hidden = hiddenFrom(state, userId)
  const key = `${guildPermissions(state, userId)}/${[...hidden].join(",")}`
  let byViewer = rendered.get(state)
  if (byViewer === undefined) {
    byViewer = new Map()
    rendered.set(state, byViewer)
  }
  let json = byViewer.get(key)
  if (json === undefined) {
    json = JSON.stringify(encodeGuild(memberView(state, userId, hidden)))
    byViewer.set(key, json)
  }
  return json
}

/** The guild as a member sees it (GuildResponse JSON). */
export const view = (userId: string): GuildRead<string> => (state) =>
  Effect.map(asMember(state, userId), (s) => renderView(s, userId))
