import { Effect, Schema, Semaphore } from "effect"
import { Rpc } from "effect/rpc"
import type { Dispatch } from "../../src/model/Dispatch.ts"
import { MetricsOn, seconds, stateLoadSeries } from "../../src/platform/Metrics.ts"
import { ActorErrors } from "./Protocol.ts"

/**
 * What the DM channel and user actors share around their definitions: the
 * Read message of their mailbox (Write names its primary key, which a generic
 * payload cannot), a state loaded on first use, and the user-addressed events
 * their writes publish.
 */

/** Any read of an actor's operations/, for `viewerId`, answered with the reply's JSON. */
export const readMessage = <Query extends Schema.Top>(query: Query) =>
  Rpc.make("Read", { payload: { viewerId: Schema.String, query }, success: Schema.String, error: ActorErrors })

/**
 * `load`, timed into guildhall_actor_state_load_seconds for `actor` (METRICS;
 * off, `load` itself): what the messages that woke an actor wait for first.
 */
export const measuredLoad = <A, E, R>(actor: string, load: Effect.Effect<A, E, R>): Effect.Effect<Effect.Effect<A, E, R>> =>
  Effect.gen(function*() {
    if (!(yield* MetricsOn)) return load
    const series = stateLoadSeries(actor)
    return Effect.suspend(() => {
      const start = seconds()
      return Effect.tap(load, () => Effect.sync(() => series(seconds() - start)))
    })
  })

/**
 * An actor's state, loaded from Postgres on first use (undefined: the entity
 * does not exist). `set` replaces it and calls `published` with it, so the
 * actor can show it to its process (LiveActors).
 */
export const loadedState = <State>(load: Effect.Effect<State | undefined>, published: (next: State | undefined) => void) => {
  const loading = Semaphore.makeUnsafe(1)
  let state: State | undefined
  let loaded = false
  const set = (next: State | undefined) => {
    state = next
    loaded = true
    published(next)
  }
  // Concurrent reads may all find the actor unloaded: the permit makes one of them load.
  const current: Effect.Effect<State | undefined> = Effect.suspend(() =>
    loaded
      ? Effect.succeed(state)
      : Effect.map(loading.withPermits(1)(Effect.suspend(() => (loaded ? Effect.void : Effect.map(load, set)))), () => state)
  )
  /** The state, or `missing()` when the entity does not exist. */
  const existing = <E>(missing: () => E): Effect.Effect<State, E> =>
    Effect.flatMap(current, (s) => (s === undefined ? Effect.fail(missing()) : Effect.succeed(s)))
  /** Whether the state was loaded already (a read now would not go to Postgres). */
  const isLoaded = () => loaded
  /** Forgets the state: the next use loads it again. */
  const forget = () => {
    loaded = false
    state = undefined
    published(undefined)
  }
  return { current, existing, set, isLoaded, forget }
}

/** A gateway dispatch to the sessions of `userIds`, its data not yet JSON. */
export interface UserAddressed {
  readonly userIds: ReadonlyArray<string>
  readonly type: string
  readonly data: unknown
}

/** Publishes a change's dispatches through `publish` (UserEvents), in order. */
export const publishAll = (publish: (userIds: Iterable<string>, dispatch: Dispatch) => Effect.Effect<void>) =>
  (dispatches: ReadonlyArray<UserAddressed>): Effect.Effect<void> =>
    Effect.forEach(dispatches, ({ userIds, type, data }) => publish(userIds, { type, data: JSON.stringify(data) }), { discard: true })

/** An actor's Read handler: the listed read of the query's tag, run on the state. */
export const answerRead = <State, E, E2>(
  actor: string,
  readOf: (tag: string) => { readonly answer: (state: State, query: unknown, viewerId: string) => Effect.Effect<string, E> } | undefined,
  existing: Effect.Effect<State, E2>
) =>
  (payload: { readonly viewerId: string; readonly query: { readonly _tag: string } }): Effect.Effect<string, E | E2> =>
    Effect.flatMap(existing, (s) => {
      const definition = readOf(payload.query._tag)
      return definition === undefined
        ? Effect.die(new Error(`no ${actor} read ${payload.query._tag}`))
        : definition.answer(s, payload.query, payload.viewerId)
    })
