import { Context, Layer } from "effect"

/** What the stats need to know of one live guild actor. */
export interface LiveGuild {
  readonly name: string
  readonly icon: string | null
  readonly memberCount: number
  /** Approximate bytes of the actor's state. */
  readonly memory: number
}

/**
 * The guild actors that hold state in this process. Actors add themselves
 * when they load and remove themselves when they drop their state, so the
 * count is exact even though the engine keeps an idle fiber around.
 */
export class LiveActors extends Context.Service<LiveActors, {
  readonly guilds: Map<string, LiveGuild>
  readonly users: Set<string>
}>()("guildhall/LiveActors") {
  static readonly layer = Layer.sync(LiveActors, () => ({ guilds: new Map<string, LiveGuild>(), users: new Set<string>() }))
}
