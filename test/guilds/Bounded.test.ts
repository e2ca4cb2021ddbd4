import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect } from "effect"
import { boundedBy } from "../../src/guilds/Bounded.ts"
import { Unavailable } from "../../src/model/Errors.ts"

describe("boundedBy", () => {
  it.live("answers Unavailable at the bound even when the call takes long to interrupt, and still interrupts it", () =>
    Effect.gen(function*() {
      const interrupted = yield* Deferred.make<void>()
      // A remote call over a dead link: interrupting it takes its own time (an Interrupt sent and retried).
      const call = Effect.never.pipe(
        Effect.onInterrupt(() => Effect.andThen(Effect.sleep("1500 millis"), Deferred.succeed(interrupted, undefined)))
      )
      const start = Date.now()
      const error = yield* Effect.flip(boundedBy(100)(call))
      expect(error).toBeInstanceOf(Unavailable)
      expect(Date.now() - start).toBeLessThan(1_000)
      expect(yield* Deferred.isDone(interrupted)).toBe(false)
      yield* Deferred.await(interrupted)
    }))

  it.effect("passes a call's answer and its failure through", () =>
    Effect.gen(function*() {
      expect(yield* boundedBy(100)(Effect.succeed(7))).toBe(7)
      const failed = yield* Effect.flip(boundedBy(100)(Effect.fail("refused")))
      expect(failed).toBe("refused")
    }))
})
