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
const batches = (release?: Deferred.Deferred<void>, stored: ReadonlyMap<string, unknown> = new Map()) =>
  Effect.gen(function*() {
    const committed: Array<string> = []
    const asked: Array<string> = []
    const write = yield* makeWriteBatches({
      guildId: "100",
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
      lock: Semaphore.makeUnsafe(1)
    })
    return { write, committed, asked }
  })

const fresh = { fresh: true }
const redelivered = { fresh: false }

describe("write batches", () => {
  it.effect("answer each write after its batch commits", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const { write, committed } = yield* batches(release)
      const first = yield* Effect.forkChild(write(nickChange("10", "a"), fresh))
      const second = yield* Effect.forkChild(write(nickChange("11", "b"), fresh))
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
      const waiting = yield* Effect.forkChild(write(nickChange("12", "c"), fresh))
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
      const replayed = yield* write(nickChange("20", "again"), redelivered)
      const newOne = yield* write(nickChange("21", "new"), fresh)
      const retried = yield* write(nickChange("22", "retried"), redelivered)
      assert.deepStrictEqual(asked, ["20", "22"])
      assert.strictEqual(JSON.parse(replayed).nick, "stored")
      assert.strictEqual(JSON.parse(newOne).nick, "new")
      assert.strictEqual(JSON.parse(retried).nick, "retried")
      assert.deepStrictEqual(committed, ["21", "22"])
    }).pipe(Effect.scoped))
})
