import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { mapAnswered } from "../../../shards/actors/Answered.ts"

describe("mapAnswered", () => {
  it.effect("maps an answered read at once and stays an Exit", () =>
    Effect.gen(function*() {
      const mapped = mapAnswered(Effect.succeed(20), (n) => n + 1)
      assert.isTrue(Exit.isExit(mapped))
      assert.strictEqual(yield* mapped, 21)
    }))

  it.effect("keeps a refusal as it is, without calling the function", () =>
    Effect.gen(function*() {
      let called = false
      const mapped = mapAnswered(Effect.fail("refused" as const), (n: number) => {
        called = true
        return n
      })
      assert.isTrue(Exit.isExit(mapped))
      assert.deepStrictEqual(yield* Effect.flip(mapped), "refused")
      assert.isFalse(called)
    }))

  it.effect("maps an effect still to run when it runs, as Effect.map", () =>
    Effect.gen(function*() {
      let ran = 0
      const mapped = mapAnswered(Effect.sync(() => ++ran), (n) => n * 10)
      assert.isFalse(Exit.isExit(mapped))
      assert.strictEqual(ran, 0)
      assert.strictEqual(yield* mapped, 10)
      assert.strictEqual(ran, 1)
    }))
})
