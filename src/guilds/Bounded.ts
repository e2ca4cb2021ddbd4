import { Effect, Fiber } from "effect"
import { actorUnavailable, type Unavailable } from "../model/Errors.ts"

/**
 * `call` bounded by `millis`: past it, `Unavailable` at once, and the call is interrupted
 * in the background. Not awaiting the interruption matters when the network to the runner
 * is a black hole: interrupting a remote call sends an Interrupt to the runner and retries
 * it over the dead link, which kept the caller a second or more past the bound.
 */
export const boundedBy = (millis: number) => <A, E, R>(call: Effect.Effect<A, E, R>): Effect.Effect<A, E | Unavailable, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.forkDetach(restore(call)), (fiber) => {
      const abandon = Effect.asVoid(Effect.forkDetach(Fiber.interrupt(fiber)))
      const joined = Effect.timeoutOrElse(Fiber.join(fiber), {
        duration: millis,
        orElse: () => Effect.andThen(abandon, Effect.fail(actorUnavailable()))
      })
      return Effect.onInterrupt(restore(joined), () => abandon)
    })
  )
