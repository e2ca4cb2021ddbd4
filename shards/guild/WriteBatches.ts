import { Cause, Data, Deferred, Effect, Exit, Option, Queue, type Scope, type Semaphore } from "effect"
import type { SqlError } from "effect/sql"
import { BadRequest, unknown } from "../../src/http/Errors.ts"
import type { Executed, GuildError } from "./Operations.ts"
import { writeOf } from "./operations/index.ts"
import type { CommittedWrite } from "./Repo.ts"
import type { GuildState } from "./State.ts"

/** A write as the actor receives it. */
export interface WritePayload extends CommittedWrite {
  readonly command: { readonly _tag: string }
}

/** A decided write, ready to commit with the others of its batch. */
export interface DecidedWrite {
  readonly write: WritePayload
  readonly decision: Executed
}

/**
 * How a write reached the actor. A fresh one is delivered for the first time,
 * under an operation id made for it in this process: nothing can have stored
 * a result under that id, so the batch does not ask Postgres.
 */
export interface Delivery {
  readonly fresh: boolean
}

interface Pending extends Delivery {
  readonly write: WritePayload
  readonly done: Deferred.Deferred<string, GuildError | ActorStopped>
}

/**
 * The actor stopped (idle, shutdown, shard moved) before it answered the write:
 * whether it committed is unknown, so the caller sends it again, by the same
 * operation id, through the actor's mailbox (which starts it again).
 */
export class ActorStopped extends Data.TaggedError("ActorStopped") {}

const conflict = () => new BadRequest({ code: "CONFLICT", message: "The change conflicts with what is stored" })

const noResults: ReadonlyMap<string, unknown> = new Map()

/** Writes one batch commits at most: a bound on one transaction's size. */
const MAX_BATCH = 256

/**
 * Group commit for one guild's writes. Writes queue up while a batch commits;
 * the next batch takes all of them, decides each against the state the ones
 * before it left (so they are applied one after another, as if alone), and
 * commits them in one transaction. Every write is answered after that commit,
 * never before. If the batch's commit fails, each of its writes is tried
 * again alone, so one bad write cannot take innocent ones with it.
 */
export const makeWriteBatches = (actor: {
  readonly guildId: string
  /** The state, loaded if need be; undefined when the guild does not exist. */
  readonly current: Effect.Effect<GuildState | undefined>
  /** Results of operations that committed already, by operation id. */
  readonly storedResults: (operationIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, unknown>>
  /** Commits the writes in one transaction. */
  readonly commit: (writes: ReadonlyArray<DecidedWrite>) => Effect.Effect<void, SqlError.SqlError>
  /** After a commit: the state to publish (undefined: the guild is gone) and the writes' events. */
  readonly committed: (next: GuildState | undefined, writes: ReadonlyArray<DecidedWrite>) => Effect.Effect<void>
  /** Held while a batch runs: whatever else changes the state waits for it. */
  readonly lock: Semaphore.Semaphore
}): Effect.Effect<(write: WritePayload, delivery: Delivery) => Effect.Effect<string, GuildError | ActorStopped>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const queue = yield* Queue.unbounded<Pending>()
    // Writes not answered yet. When the actor stops, the worker is interrupted first (it was
    // forked after this finalizer was added), then every write it left is told so.
    const open = new Set<Pending>()
    yield* Effect.addFinalizer(() =>
      Effect.forEach(open, (pending) => Deferred.fail(pending.done, new ActorStopped()), { discard: true }))

    /** Decides `writes` in order from the current state; what failed to decide is answered at once. */
    const decideAll = (writes: ReadonlyArray<Pending>) =>
      Effect.gen(function*() {
        const replayable = writes.filter((p) => !p.fresh).map((p) => p.write.operationId)
        const stored = replayable.length === 0 ? noResults : yield* actor.storedResults(replayable)
        let state = yield* actor.current
        let gone = false
        const decided: Array<DecidedWrite & { readonly done: Pending["done"] }> = []
        const answered: Array<readonly [Pending, Exit.Exit<string, GuildError>]> = []
        const seen = new Map<string, Pending>()
        for (const pending of writes) {
          const { write } = pending
          const result = stored.get(write.operationId)
          const twin = seen.get(write.operationId)
          if (result !== undefined) {
            answered.push([pending, Exit.succeed(JSON.stringify(result))])
            continue
          }
          if (twin !== undefined) {
            // Delivered twice before its first delivery committed: it takes the first one's answer.
            yield* Effect.forkDetach(Effect.flatMap(Deferred.await(twin.done), (json) => Deferred.succeed(pending.done, json)).pipe(
              Effect.catchCause((cause) => Deferred.failCause(pending.done, cause))
            ))
            continue
          }
          seen.set(write.operationId, pending)
          const definition = writeOf(write.command._tag)
          if (state === undefined || gone) {
            answered.push([pending, Exit.fail(unknown("GUILD"))])
            continue
          }
          if (definition === undefined) {
            answered.push([pending, Exit.die(new Error(`no guild write ${write.command._tag}`))])
            continue
          }
          const exit = yield* Effect.exit(definition.execute(state, write.command, { guildId: actor.guildId, ...write }))
          if (Exit.isFailure(exit)) {
            answered.push([pending, Exit.failCause(exit.cause)])
            continue
          }
          decided.push({ write, decision: exit.value, done: pending.done })
          state = exit.value.next
          gone = exit.value.dropsGuild === true
        }
        return { decided, answered, next: gone ? undefined : state }
      })

    const runBatch = (writes: ReadonlyArray<Pending>) =>
      Effect.gen(function*() {
        const { decided, answered, next } = yield* decideAll(writes)
        const committed = decided.length === 0 ? Exit.void : yield* Effect.exit(actor.commit(decided))
        if (Exit.isFailure(committed)) {
          const refused = Cause.findErrorOption(committed.cause)
          // Alone, a write that Postgres refuses for good (a constraint) is answered so; anything
          // else (the database away) fails the batch, and the engine delivers the write again.
          if (writes.length > 1 || Option.isNone(refused) || refused.value.cause.isRetryable) return false
          for (const { done } of decided) yield* Deferred.fail(done, conflict())
        } else if (decided.length > 0) {
          yield* actor.committed(next, decided)
          for (const { done, decision } of decided) yield* Deferred.succeed(done, decision.reply)
        }
        for (const [pending, exit] of answered) yield* Deferred.done(pending.done, exit)
        return true
      })

    /** Whether the batch committed (a failure to decide or commit counts as not). */
    const attempt = (writes: ReadonlyArray<Pending>) =>
      Effect.map(Effect.exit(runBatch(writes)), (exit) => Exit.isSuccess(exit) && exit.value)

    const worker = Effect.forever(
      Effect.flatMap(Queue.takeBetween(queue, 1, MAX_BATCH), (writes) =>
        actor.lock.withPermits(1)(
          Effect.flatMap(attempt(writes), (ok) =>
            ok
              ? Effect.void
              // Alone, each write commits or fails on its own account.
              : Effect.forEach(writes, (pending) =>
                Effect.flatMap(attempt([pending]), (alone) =>
                  alone ? Effect.void : Deferred.die(pending.done, new Error("the write could not be committed"))), {
                discard: true
              })
          )
        ))
    )
    yield* Effect.forkScoped(worker)

    return (write: WritePayload, { fresh }: Delivery) =>
      Effect.flatMap(Deferred.make<string, GuildError | ActorStopped>(), (done) => {
        const pending = { write, done, fresh }
        open.add(pending)
        return Effect.andThen(Queue.offer(queue, pending), Deferred.await(done)).pipe(
          Effect.ensuring(Effect.sync(() => open.delete(pending)))
        )
      })
  })
