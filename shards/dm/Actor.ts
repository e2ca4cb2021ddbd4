import { type Duration, Effect, Semaphore } from "effect"
import { Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { unknown } from "../../src/model/Errors.ts"
import { answerRead, loadedState, measuredLoad, publishAll } from "../actors/Mailbox.ts"
import { makeWriteBatches } from "../actors/WriteBatches.ts"
import { LiveActors } from "../LiveActors.ts"
import { UserEvents } from "../UserEvents.ts"
import type { DmContext, DmError, Executed } from "./Definitions.ts"
import { readOf, writeOf } from "./operations/index.ts"
import { DmChannel } from "./Protocol.ts"
import { DmRepo } from "./Repo.ts"
import type { DmState } from "./State.ts"
import { actorRestarts } from "../actors/Restarts.ts"

/**
 * One DM channel's actor: the only writer of its channel. State is loaded
 * from Postgres on first use; writes are decided one after another in the
 * order they arrive and committed in batches with their operation records
 * (actors/WriteBatches.ts), then announced to the recipients' sessions, then
 * answered. Reads are answered from memory.
 */
export const DmChannelActor = (options: { readonly maxIdleTime: Duration.Input }) =>
  DmChannel.toLayer(
    Effect.gen(function*() {
      const { entityId: channelId } = yield* Entity.CurrentAddress
      const repo = yield* DmRepo
      const events = yield* UserEvents
      const live = yield* LiveActors
      const { current, existing: existingOr, set: track, forget } = loadedState(yield* measuredLoad("dm", repo.load(channelId)), (next) => {
        if (next === undefined) live.dms.delete(channelId)
        else live.dms.add(channelId)
        if (next?.call === undefined) live.calls.delete(channelId)
        else live.calls.add(channelId)
      })
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          live.dms.delete(channelId)
          live.calls.delete(channelId)
        })
      )
      const existing = existingOr(() => unknown("CHANNEL"))
      const publish = publishAll(events.publish)

      const writeBatched = yield* makeWriteBatches<DmState, DmContext, Executed, DmError>({
        kind: "dm",
        current,
        context: (write) => ({ channelId, actorId: write.actorId, operationId: write.operationId, now: write.now }),
        missing: () => unknown("CHANNEL"),
        removes: (decision) => decision.dropsChannel === true,
        storedResults: repo.operationResults,
        commit: (writes) => repo.commitWrites(channelId, writes),
        committed: (next, writes) =>
          Effect.andThen(Effect.sync(() => track(next)), Effect.forEach(writes, ({ decision }) => publish(decision.events), { discard: true })),
        lock: Semaphore.makeUnsafe(1),
        fenceLost: forget
      })

      return DmChannel.of({
        // Every write comes through the mailbox, so it may be a redelivery: its operation id is looked up.
        // A write left when the actor stops is the engine's to deliver again: this handler is interrupted too.
        Write: ({ payload }) => {
          const definition = writeOf(payload.command._tag)
          if (definition === undefined) return Effect.die(new Error(`no DM channel write ${payload.command._tag}`))
          const write = { operationId: payload.operationId, actorId: payload.actorId, reason: null, now: payload.now }
          return writeBatched(write, { fresh: false, decide: (s, context) => definition.execute(s, payload.command, context) }).pipe(
            Effect.catchTag("ActorStopped", () => Effect.interrupt),
            Rpc.fork
          )
        },

        Read: ({ payload }) => answerRead("DM channel", readOf, existing)(payload).pipe(Rpc.fork)
      })
    }),
    { maxIdleTime: options.maxIdleTime, defectRetryPolicy: actorRestarts }
  )
