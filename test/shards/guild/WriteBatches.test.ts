import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Option, Scope, Semaphore } from "effect"
import * as Members from "../../../shards/guild/operations/Members.ts"
import { createGuild } from "../../../shards/guild/State.ts"
import { ActorStopped, makeWriteBatches, type WritePayload } from "../../../shards/guild/WriteBatches.ts"

const owner = { id: "1", username: "u1", discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 }
const state = createGuild({ guildId: "100", channelId: "101", owner, name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })

const nickChange = (operationId: string, nick: string): WritePayload => ({
  operationId,
  actorId: "1",
  reason: null,
  now: Date.parse("2026-01-02T00:00:00.000Z"),
  command: Members.updateMember.command.make({ targetId: "1", patch: { nick } })
})

/** Batches whose commit waits for `release` (or forever), recording what it was given. */
const batches = (release?: Deferred.Deferred<void>) =>
  Effect.gen(function*() {
    const committed: Array<string> = []
    const write = yield* makeWriteBatches({
      guildId: "100",
      current: Effect.succeed(state),
      storedResults: () => Effect.succeed(new Map()),
      commit: (writes) =>
        Effect.andThen(
          release === undefined ? Effect.never : Deferred.await(release),
          Effect.sync(() => {
            committed.push(...writes.map((w) => w.write.operationId))
          })
        ),
      committed: () => Effect.void,
      lock: Semaphore.makeUnsafe(1)
    })
    return { write, committed }
  })

describe("write batches", () => {
  it.effect("answer each write after its batch commits", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const { write, committed } = yield* batches(release)
      const first = yield* Effect.forkChild(write(nickChange("10", "a")))
      const second = yield* Effect.forkChild(write(nickChange("11", "b")))
      yield* Effect.yieldNow
      assert.deepStrictEqual(committed, [])
      yield* Deferred.succeed(release, undefined)
      const replies = [yield* Fiber.join(first), yield* Fiber.join(second)].map((json) => JSON.parse(json).nick)
      assert.deepStrictEqual(replies, ["a", "b"])
      assert.deepStrictEqual(committed.toSorted(), ["10", "11"])
    }).pipe(Effect.scoped))

  it.effect("a write left unanswered when the actor stops fails with ActorStopped at once, not at a timeout", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { write } = yield* Scope.provide(batches(), scope)
      const waiting = yield* Effect.forkChild(write(nickChange("12", "c")))
      yield* Effect.yieldNow
      yield* Scope.close(scope, Exit.void)
      const exit = yield* Fiber.await(waiting)
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        const error = Cause.findErrorOption(exit.cause)
        assert.isTrue(Option.isSome(error) && error.value instanceof ActorStopped)
      }
    }))
})
