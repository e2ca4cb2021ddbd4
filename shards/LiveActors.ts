import { Context, Effect, Layer } from "effect"
import { gaugeOnScrape } from "../src/platform/Metrics.ts"
import type { GuildError } from "./guild/Definitions.ts"
import type { GuildState } from "./guild/State.ts"
import type { ActorStopped, CommittedWrite, Delivery } from "./guild/WriteBatches.ts"
import type { GuildId } from "../src/model/Ids.ts"
import type * as Batches from "./actors/WriteBatches.ts"
import type { Executed as UserExecuted, UserContext, UserError } from "./user/Definitions.ts"
import type { UserState } from "./user/State.ts"

/** One live guild actor: the state it published after its last committed change, and what the stats show. */
export interface LiveGuild {
  readonly state: GuildState
  /** Queues a write for the actor's next batch, as its Write handler does. */
  readonly write: (write: CommittedWrite, delivery: Delivery) => Effect.Effect<string, GuildError | ActorStopped>
  readonly name: string
  readonly icon: string | null
  readonly memberCount: number
  /** Approximate bytes of the actor's state. */
  readonly memory: number
}

/** One live user actor: the state it published after its last committed change. */
export interface LiveUser {
  readonly state: UserState
  /** Queues a write for the actor's next batch, as its Write handler does. */
  readonly write: (
    write: Batches.CommittedWrite,
    delivery: Batches.Delivery<UserState, UserContext, UserExecuted, UserError>
  ) => Effect.Effect<string, UserError | Batches.ActorStopped>
  /** Approximate bytes of the actor's state. */
  readonly memory: number
}

/** A gateway session of this process, as the stats see it: whose it is and the guilds it is in. */
export interface LiveSession {
  readonly userId: string
  readonly guilds: ReadonlySet<string>
}

/**
 * The guild actors that hold state in this process. Actors add themselves
 * when they load, replace their entry after each committed change, and remove
 * themselves when they drop their state, so the count is exact even though
 * the engine keeps an idle fiber around. Reads in this process are served
 * from the published state (src/guilds/Actors.ts).
 */
export class LiveActors extends Context.Service<LiveActors, {
  readonly guilds: Map<GuildId, LiveGuild>
  /** The user actors that hold state in this process; reads here are served from it (src/guilds/Actors.ts). */
  readonly users: Map<string, LiveUser>
  /** The DM channels whose actor lives here and holds their state (shards/dm/Actor.ts). */
  readonly dms: Set<string>
  /** The DM channels whose actor lives here and holds a call in progress (shards/dm/Actor.ts). */
  readonly calls: Set<string>
  /** The gateway sessions this process holds, by id (src/gateway/Registry.ts). */
  readonly sessions: Map<string, LiveSession>
  /** The users connected to this process who show as online, idle or dnd (src/gateway/Presence.ts). */
  readonly presences: Set<string>
}>()("guildhall/LiveActors") {
  /** The maps of this process, their sizes shown as gauges when metrics are scraped (guildhall_live_actors). */
  static readonly layer = Layer.effect(
    LiveActors,
    Effect.gen(function*() {
      const live = {
        guilds: new Map<GuildId, LiveGuild>(),
        users: new Map<string, LiveUser>(),
        dms: new Set<string>(),
        calls: new Set<string>(),
        sessions: new Map<string, LiveSession>(),
        presences: new Set<string>()
      }
      const description = "Actors holding their state in this process, by kind"
      yield* gaugeOnScrape("guildhall_live_actors", description, { kind: "guild" }, () => live.guilds.size)
      yield* gaugeOnScrape("guildhall_live_actors", description, { kind: "user" }, () => live.users.size)
      yield* gaugeOnScrape("guildhall_live_actors", description, { kind: "dm" }, () => live.dms.size)
      yield* gaugeOnScrape("guildhall_dm_calls", "DM calls in progress whose actor lives in this process", {}, () => live.calls.size)
      return live
    })
  )
}
