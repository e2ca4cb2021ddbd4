import { Cause, Data, Effect, Exit, Option, Scope, type Semaphore, type Tracer } from "effect"
import type { SqlError } from "effect/sql"
import type { BadRequest } from "../../src/model/Errors.ts"
import { MetricsOn, seconds, type WriteBatchSeries, writeBatchSeries } from "../../src/platform/Metrics.ts"
import { exportedSpan, isTracing } from "../../src/platform/Tracing.ts"
import { isFenceLost } from "./Fences.ts"
import { permanentRefusal, refusalError } from "./Refusals.ts"

/** What every actor knows of a write it commits: the caller fixed all of it, so a redelivery decides the same. */
export interface CommittedWrite {
  /** A snowflake: the key of `actor_operations`, and the first id the write's own rows may take. */
  readonly operationId: string
  /** The user acting. */
  readonly actorId: string
  /** `X-Audit-Log-Reason`, where the actor keeps an audit log. */
  readonly reason: string | null
  /** Milliseconds since the epoch. */
  readonly now: number
}

/** What the batches need of a decision: the next state, and the reply as JSON. */
export interface DecidedState<State> {
  readonly next: State
  readonly reply: string
}

/** A decided write, ready to commit with the others of its batch. */
export interface DecidedWrite<Decision> {
  readonly write: CommittedWrite
  readonly decision: Decision
}

/**
 * How a write reached the actor. A fresh one is delivered for the first time,
 * under an operation id made for it in this process: nothing can have stored
 * a result under that id, so the batch does not ask Postgres.
 */
export interface Delivery<State, Context, Decision, E> {
  readonly fresh: boolean
  /** The write's decision: its definition applied to its command (WriteDefinition.decideJson). */
  readonly decide: (state: State, context: Context) => Effect.Effect<Decision, E>
}

/** A write's answer: its reply, its refusal, a 400 when Postgres refused its rows for good (Refusals.ts), or the actor stopped. */
type Answer<E> = Exit.Exit<string, E | BadRequest | ActorStopped>

interface Pending<State, Context, Decision, E> extends Delivery<State, Context, Decision, E> {
  readonly write: CommittedWrite
  /** Resumes the caller; called once (answered: see `answer`). */
  readonly resume: (answer: Answer<E>) => void
  /** Deliveries of the same operation id that came while this one was undecided: they take its answer. */
  readonly sameOperation: Array<Pending<State, Context, Decision, E>>
  /** The caller's span, when spans are exported: the batch's span continues its trace. */
  readonly span: Tracer.AnySpan | undefined
  answered: boolean
  /** When it was queued (seconds), with metrics on: its wait is recorded as its batch starts. */
  readonly queuedAt: number
}

/**
 * The actor stopped (idle, shutdown, shard moved) before it answered the write:
 * whether it committed is unknown, so the caller sends it again, by the same
 * operation id, through the actor's mailbox (which starts it again).
 */
export class ActorStopped extends Data.TaggedError("ActorStopped") {}

const noResults: ReadonlyMap<string, unknown> = new Map()

/** Writes one batch commits at most: a bound on one transaction's size. */
const MAX_BATCH = 256

/** One actor's side of the batches: its state, its Postgres and what a write of it knows. */
export interface BatchedActor<State, Context, Decision extends DecidedState<State>, E> {
  /** The kind of actor (`guild`, `user`, `dm`): the label of its batches' metrics. */
  readonly kind: string
  /** The state, loaded if need be; undefined when the actor's entity does not exist. */
  readonly current: Effect.Effect<State | undefined>
  /** What a decision knows besides its command. */
  readonly context: (write: CommittedWrite) => Context
  /** The answer to a write for an entity that does not exist (or that a write before it in the batch removed). */
  readonly missing: () => E
  /** Whether the decision removed the entity: the writes after it in the batch are answered `missing`. */
  readonly removes: (decision: Decision) => boolean
  /** Results of operations that committed already, by operation id. */
  readonly storedResults: (operationIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, unknown>>
  /** Commits the writes in one transaction. */
  readonly commit: (writes: ReadonlyArray<DecidedWrite<Decision>>) => Effect.Effect<void, SqlError.SqlError>
  /** After a commit: the state to publish (undefined: the entity is gone) and the writes' events. */
  readonly committed: (next: State | undefined, writes: ReadonlyArray<DecidedWrite<Decision>>) => Effect.Effect<void>
  /** Held while a batch runs: whatever else changes the state waits for it. */
  readonly lock: Semaphore.Semaphore
  /**
   * Another process has loaded the actor since this one did (its fence, Fences.ts): forget the
   * state, so that what comes next loads it again, with what the other process committed.
   */
  readonly fenceLost: () => void
}

/**
 * Group commit for one actor's writes. Writes queue up while a batch commits;
 * the next batch takes all of them, decides each against the state the ones
 * before it left (so they are applied one after another, as if alone), and
 * commits them in one transaction. Every write is answered after that commit,
 * never before. If the batch's commit fails, each of its writes is tried
 * again alone, so one bad write cannot take innocent ones with it.
 */
export const makeWriteBatches = <State, Context, Decision extends DecidedState<State>, E>(
  actor: BatchedActor<State, Context, Decision, E>
): Effect.Effect<
  (write: CommittedWrite, delivery: Delivery<State, Context, Decision, E>) => Effect.Effect<string, E | BadRequest | ActorStopped>,
  never,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const series = (yield* MetricsOn) ? writeBatchSeries(actor.kind) : undefined
    // An actor that only answers reads (most users, most of the time) never builds its batches.
    let enqueue: Enqueue<State, Context, Decision, E> | undefined
    const started = Effect.suspend(() => {
      if (enqueue !== undefined) return Effect.succeed(enqueue)
      const batches = buildBatches(actor, series)
      // Set before anything yields, so a write arriving meanwhile joins these batches.
      enqueue = batches.enqueue
      // The finalizer is added before the worker forks, so the worker is interrupted first when the actor stops.
      return Effect.as(Effect.andThen(Scope.addFinalizer(scope, batches.stop), Effect.forkIn(batches.worker, scope)), batches.enqueue)
    })
    return (write: CommittedWrite, delivery: Delivery<State, Context, Decision, E>) =>
      Effect.flatMap(started, (enqueue) => enqueue(write, delivery))
  })

type Enqueue<State, Context, Decision, E> = (
  write: CommittedWrite,
  delivery: Delivery<State, Context, Decision, E>
) => Effect.Effect<string, E | BadRequest | ActorStopped>

/** The batches of one actor: the queue of writes, the worker that commits them, and what stopping answers. */
const buildBatches = <State, Context, Decision extends DecidedState<State>, E>(
  actor: BatchedActor<State, Context, Decision, E>,
  series: WriteBatchSeries | undefined
): {
  readonly enqueue: Enqueue<State, Context, Decision, E>
  readonly worker: Effect.Effect<never>
  readonly stop: Effect.Effect<void>
} => {
  type Waiting = Pending<State, Context, Decision, E>
  // Writes wait here for the next batch; `wake` resumes the worker when it waits for one.
  let waiting: Array<Waiting> = []
  let wake: (() => void) | undefined
  let stopped = false
  // Writes not answered yet. When the actor stops, the worker is interrupted first (it was
  // forked after this finalizer was added), then every write it left is told so.
  const open = new Set<Waiting>()

  /** Answers a write and the writes of the same operation that wait on it, each once. */
  const answer = (pending: Waiting, exit: Answer<E>): void => {
    if (pending.answered) return
    pending.answered = true
    open.delete(pending)
    pending.resume(exit)
    for (const repeat of pending.sameOperation) answer(repeat, exit)
  }
  const stop = Effect.sync(() => {
    stopped = true
    for (const pending of [...open]) answer(pending, Exit.fail(new ActorStopped()))
  })

  /** Decides `writes` in order from the current state; what failed to decide is answered at once. */
  const decideAll = (writes: ReadonlyArray<Waiting>) =>
    Effect.gen(function*() {
      const replayable = writes.filter((p) => !p.fresh).map((p) => p.write.operationId)
      const stored = replayable.length === 0 ? noResults : yield* actor.storedResults(replayable)
      let state = yield* actor.current
      let gone = false
      const decided: Array<DecidedWrite<Decision> & { readonly pending: Waiting }> = []
      const seen = new Map<string, Waiting>()
      for (const pending of writes) {
        const { write } = pending
        const result = stored.get(write.operationId)
        const repeat = seen.get(write.operationId)
        if (result !== undefined) {
          answer(pending, Exit.succeed(JSON.stringify(result)))
          continue
        }
        if (repeat !== undefined) {
          // Delivered twice before its first delivery committed: it takes the first one's answer.
          repeat.sameOperation.push(pending)
          continue
        }
        seen.set(write.operationId, pending)
        if (state === undefined || gone) {
          answer(pending, Exit.fail(actor.missing()))
          continue
        }
        const exit = yield* Effect.exit(pending.decide(state, actor.context(write)))
        if (Exit.isFailure(exit)) {
          answer(pending, Exit.failCause(exit.cause))
          continue
        }
        decided.push({ write, decision: exit.value, pending })
        state = exit.value.next
        gone = actor.removes(exit.value)
      }
      return { decided, next: gone ? undefined : state }
    })

  const runBatch = (writes: ReadonlyArray<Waiting>) =>
    Effect.gen(function*() {
      const { decided, next } = yield* decideAll(writes)
      const commitStart = series === undefined ? 0 : seconds()
      const committed = decided.length === 0 ? Exit.void : yield* Effect.exit(actor.commit(decided))
      if (series !== undefined && decided.length > 0) {
        series.committed(decided.length, seconds() - commitStart, Exit.isSuccess(committed))
      }
      if (Exit.isFailure(committed)) {
        const failed = Cause.findErrorOption(committed.cause)
        // Nothing of the batch was stored, and this process no longer owns the actor: its callers
        // send the writes again (ActorStopped), through the mailbox, to whoever owns it now.
        if (Option.isSome(failed) && isFenceLost(failed.value)) {
          actor.fenceLost()
          for (const { pending } of decided) answer(pending, Exit.fail(new ActorStopped()))
          return true
        }
        const refusal = Option.isSome(failed) ? permanentRefusal(failed.value) : undefined
        // Alone, a write that Postgres refuses for good (a constraint, bad data) is answered so at
        // once; anything else (the database away) fails the batch, and the engine delivers the write again.
        if (writes.length > 1 || refusal === undefined) return false
        for (const { pending } of decided) answer(pending, Exit.fail(refusalError(refusal)))
      } else if (decided.length > 0) {
        yield* actor.committed(next, decided)
        for (const { pending, decision } of decided) answer(pending, Exit.succeed(decision.reply))
      }
      return true
    })

  /**
   * A batch in a span of its own, when spans are exported: in the trace of its
   * first recorded write, linked to the traces of the others (its statements
   * are spans under it). With no recorded write, an unrecorded span of its own,
   * so that its statements are not recorded either.
   */
  const traced = (writes: ReadonlyArray<Waiting>, batch: Effect.Effect<boolean>) =>
    Effect.withFiber((fiber) => {
      if (!isTracing(fiber)) return batch
      const spans = writes.flatMap((pending) => pending.span ?? [])
      return Effect.withSpan(batch, "WriteBatch.commit", {
        parent: spans[0],
        root: spans.length === 0,
        sampled: spans.length > 0,
        links: spans.slice(1).map((span) => ({ span, attributes: {} })),
        attributes: { "batch.writes": writes.length },
        captureStackTrace: false
      })
    })

  /** Whether the batch committed (a failure to decide or commit counts as not). */
  const attempt = (writes: ReadonlyArray<Waiting>) =>
    traced(writes, Effect.map(Effect.exit(runBatch(writes)), (exit) => Exit.isSuccess(exit) && exit.value))

  /** The writes of the next batch, once there is one (what waits, up to MAX_BATCH). */
  const nextBatch = Effect.callback<ReadonlyArray<Waiting>>((resume) => {
    const take = () => {
      wake = undefined
      const writes = waiting.slice(0, MAX_BATCH)
      waiting = waiting.slice(MAX_BATCH)
      resume(Effect.succeed(writes))
    }
    if (waiting.length > 0) return take()
    wake = take
    return Effect.sync(() => {
      wake = undefined
    })
  })

  const worker = Effect.forever(
    Effect.flatMap(nextBatch, (batch) => {
      // A caller interrupted while waiting has been answered already.
      const writes = batch.filter((pending) => !pending.answered)
      if (series !== undefined) {
        const now = seconds()
        for (const pending of writes) series.queued(now - pending.queuedAt)
      }
      return actor.lock.withPermits(1)(
        Effect.flatMap(attempt(writes), (ok) =>
          ok
            ? Effect.void
            // Alone, each write commits or fails on its own account (a repeated operation answered by its first is skipped).
            : Effect.forEach(writes, (pending) =>
              pending.answered ? Effect.void : Effect.map(attempt([pending]), (alone) => {
                if (!alone) answer(pending, Exit.die(new Error("the write could not be committed")))
              }), { discard: true })
        )
      )
    })
  )
  const enqueue: Enqueue<State, Context, Decision, E> = (write, { decide, fresh }) =>
    Effect.withFiber((fiber) => {
      const span = exportedSpan(fiber)
      return Effect.callback<string, E | BadRequest | ActorStopped>((resume) => {
        if (stopped) return resume(Exit.fail(new ActorStopped()))
        const queuedAt = series === undefined ? 0 : seconds()
        const pending: Waiting = { write, decide, fresh, resume, sameOperation: [], span, answered: false, queuedAt }
        open.add(pending)
        waiting.push(pending)
        wake?.()
        // The caller gave up: a write still waiting leaves the queue; one in a batch goes on unanswered.
        return Effect.sync(() => {
          pending.answered = true
          open.delete(pending)
          waiting = waiting.filter((p) => p !== pending)
        })
      })
    })
  return { enqueue, worker, stop }
}
