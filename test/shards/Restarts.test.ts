import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Schedule } from "effect"
import { ACTOR_RESTART_PAUSE, actorRestarts } from "../../shards/actors/Restarts.ts"

describe("actor restarts after a defect", () => {
  // A Postgres outage kills dozens of actors' commits; the engine's own policy is one
  // growing schedule per runner, which left every later restart waiting 10 s.
  it.effect("wait the same short pause however many came before", () =>
    Effect.gen(function*() {
      const step = yield* Schedule.toStep(actorRestarts)
      const delays: Array<number> = []
      for (let i = 0; i < 50; i++) {
        const [, delay] = yield* step(i * 500, undefined)
        delays.push(Duration.toMillis(delay))
      }
      expect(new Set(delays)).toEqual(new Set([Duration.toMillis(ACTOR_RESTART_PAUSE)]))
    }))
})
