import { Effect, Schedule, type Scope } from "effect"

/**
 * `run` every `seconds` in this process, for as long as the scope lives. A
 * failed run is logged (`what` failed) and the next one tries again: the loop
 * itself never dies. Each process runs its own sweeps; the work they take is
 * claimed in Postgres, so two processes never do the same at once.
 */
export const sweepEvery = <R>(
  run: Effect.Effect<unknown, unknown, R>,
  seconds: number,
  what: string
): Effect.Effect<void, never, R | Scope.Scope> =>
  run.pipe(
    Effect.catchCause((cause) => Effect.logWarning(`${what} failed`, cause)),
    Effect.repeat(Schedule.spaced(`${seconds} seconds`)),
    Effect.forkScoped,
    Effect.asVoid
  )

/** Claims jobs one after another (`claim` answers undefined when none is due) and runs each, `perRun` at most; how many it ran. */
export const runClaimed = <J, E, R, E2, R2>(
  claim: Effect.Effect<J | undefined, E, R>,
  runOne: (job: J) => Effect.Effect<unknown, E2, R2>,
  perRun: number
): Effect.Effect<number, E | E2, R | R2> =>
  Effect.gen(function*() {
    let done = 0
    while (done < perRun) {
      const job = yield* claim
      if (job === undefined) break
      done++
      yield* runOne(job)
    }
    return done
  })
