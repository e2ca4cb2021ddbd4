import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Option, Scope, Semaphore } from "effect"
import * as Members from "../../../shards/guild/operations/Members.ts"
import { createGuild } from "../../../shards/guild/State.ts"
import type { CommittedWrite } from "../../../shards/guild/Repo.ts"
import { ActorStopped, type Delivery, makeWriteBatches } from "../../../shards/guild/WriteBatches.ts"
import { CarriedId } from "../../../src/model/Ids.ts"
import { defaultLimits } from "../../../src/model/Limits.ts"

const owner = { id: "1", username: "u1", discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 }
const state = createGuild({ guildId: "100", channelId: "101", owner, name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })

/** The owner's nick change under `operationId`: from this process (fresh) or through the mailbox (redelivered). */
const nickChange = (operationId: string, nick: string, fresh: boolean): [CommittedWrite, Delivery] => [
  { operationId, actorId: "1", reason: null, now: Date.parse("2026-01-02T00:00:00.000Z") },
  {
    fresh,
    decide: (state, context) =>
      Members.updateMember.decideJson(state, Members.updateMember.command.make({ targetId: CarriedId.UserId.make("1"), patch: { nick } }), context)
  }
]

/** Batches whose commit waits for `release` (or forever), recording what it was given. */
const batches = (release?: Deferred.Deferred<void>, stored: ReadonlyMap<string, unknown> = new Map()) =>
  Effect.gen(function*() {
    const committed: Array<string> = []
    const asked: Array<string> = []
    const write = yield* makeWriteBatches({
      guildId: "100",
      limits: defaultLimits,
      current: Effect.succeed(state),
      storedResults: (ids) =>
        Effect.sync(() => {
          asked.push(...ids)
          return new Map([...stored].filter(([id]) => ids.includes(id)))
        }),
      commit: (writes) =>
        Effect.andThen(
          release === undefined ? Effect.never : Deferred.await(release),
          Effect.sync(() => {
            committed.push(...writes.map((w) => w.write.operationId))
          })
        ),
      committed: () => Effect.void,
      lock: Semaphore.makeUnsafe(1),
      fenceLost: () => undefined
    })
    return { write, committed, asked }
  })

describe("write batches", () => {
  it.effect("answer each write after its batch commits", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const { write, committed } = yield* batches(release)
      const first = yield* Effect.forkChild(write(...nickChange("10", "a", true)))
      const second = yield* Effect.forkChild(write(...nickChange("11", "b", true)))
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
      const waiting = yield* Effect.forkChild(write(...nickChange("12", "c", true)))
      yield* Effect.yieldNow
      yield* Scope.close(scope, Exit.void)
      const exit = yield* Fiber.await(waiting)
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        const error = Cause.findErrorOption(exit.cause)
        assert.isTrue(Option.isSome(error) && error.value instanceof ActorStopped)
      }
    }))

  it.effect("only a redelivered write is looked up, and one that committed before is answered its stored result", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const { write, committed, asked } = yield* batches(release, new Map([["20", { nick: "stored" }]]))
      yield* Deferred.succeed(release, undefined)
      const replayed = yield* write(...nickChange("20", "again", false))
      const newOne = yield* write(...nickChange("21", "new", true))
      const retried = yield* write(...nickChange("22", "retried", false))
      assert.deepStrictEqual(asked, ["20", "22"])
      assert.strictEqual(JSON.parse(replayed).nick, "stored")
      assert.strictEqual(JSON.parse(newOne).nick, "new")
      assert.strictEqual(JSON.parse(retried).nick, "retried")
      assert.deepStrictEqual(committed, ["21", "22"])
    }).pipe(Effect.scoped))

  it.effect("a write delivered twice in one batch is decided and committed once, and both deliveries get its answer", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const { write, committed } = yield* batches(release)
      const blocker = yield* Effect.forkChild(write(...nickChange("30", "first batch", true)))
      yield* Effect.yieldNow
      const first = yield* Effect.forkChild(write(...nickChange("31", "twice", false)))
      const again = yield* Effect.forkChild(write(...nickChange("31", "twice, later", false)))
      yield* Effect.yieldNow
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(blocker)
      const replies = [yield* Fiber.join(first), yield* Fiber.join(again)].map((json) => JSON.parse(json).nick)
      assert.deepStrictEqual(replies, ["twice", "twice"])
      assert.deepStrictEqual(committed, ["30", "31"])
    }).pipe(Effect.scoped))

  it.effect("a caller that gives up while its write waits takes it out of the next batch", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const { write, committed } = yield* batches(release)
      const blocker = yield* Effect.forkChild(write(...nickChange("40", "first batch", true)))
      yield* Effect.yieldNow
      const abandoned = yield* Effect.forkChild(write(...nickChange("41", "abandoned", true)))
      const kept = yield* Effect.forkChild(write(...nickChange("42", "kept", true)))
      yield* Effect.yieldNow
      yield* Fiber.interrupt(abandoned)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(blocker)
      assert.strictEqual(JSON.parse(yield* Fiber.join(kept)).nick, "kept")
      assert.deepStrictEqual(committed, ["40", "42"])
    }).pipe(Effect.scoped))
})
