import { type Duration, Effect, Semaphore } from "effect"
import { Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { unknown } from "../../src/model/Errors.ts"
import type { GuildId } from "../../src/model/Ids.ts"
import { answerRead, loadedState, measuredLoad, publishAll } from "../actors/Mailbox.ts"
import { makeWriteBatches } from "../actors/WriteBatches.ts"
import { LiveActors } from "../LiveActors.ts"
import { UserEvents } from "../UserEvents.ts"
import { accountChanges, withChangeLog } from "./ChangeLog.ts"
import type { Executed, UserContext, UserError } from "./Definitions.ts"
import { privateView, privateViewJson } from "./operations/Account.ts"
import { readOf, writeOf } from "./operations/index.ts"
import { User } from "./Protocol.ts"
import { UserRepo } from "./Repo.ts"
import { approximateBytes, type UserState } from "./State.ts"
import { actorRestarts } from "../actors/Restarts.ts"

/**
 * One user's actor: the only writer of the person's own state. State is
 * loaded from Postgres on first use; writes are decided one after another and
 * committed in batches with their operation records (actors/WriteBatches.ts),
 * then announced to the user's sessions, then answered. Reads are answered
 * from memory, in this process straight from the published state.
 */
export const UserActor = (options: { readonly maxIdleTime: Duration.Input }) =>
  User.toLayer(
    Effect.gen(function*() {
      const { entityId: userId } = yield* Entity.CurrentAddress
      const repo = yield* UserRepo
      const events = yield* UserEvents
      const live = yield* LiveActors
      const lock = Semaphore.makeUnsafe(1)
      let localWrite: NonNullable<ReturnType<typeof live.users.get>>["write"] = () => Effect.die(new Error("not started"))
      const { current, existing: existingOr, set: track, isLoaded, forget } = loadedState(yield* measuredLoad("user", repo.load(userId)), (next) => {
        if (next === undefined) live.users.delete(userId)
        else live.users.set(userId, { state: next, write: (w, d) => localWrite(w, d), memory: approximateBytes(next) })
      })
      yield* Effect.addFinalizer(() => Effect.sync(() => live.users.delete(userId)))
      const existing = existingOr(() => unknown("USER"))
      const publish = publishAll(events.publish)

      const writeBatched = yield* makeWriteBatches<UserState, UserContext, Executed, UserError>({
        kind: "user",
        current,
        context: (write) => ({ userId, actorId: write.actorId, operationId: write.operationId, now: write.now }),
        missing: () => unknown("USER"),
        removes: () => false,
        storedResults: repo.operationResults,
        commit: (writes) => repo.commitWrites(userId, writes),
        committed: (next, writes) =>
          Effect.andThen(Effect.sync(() => track(next)), Effect.forEach(writes, ({ decision }) => publish(decision.events), { discard: true })),
        lock,
        fenceLost: forget
      })
      /** Every write, whichever way it came, logs what it changed of the account's identity in its own transaction. */
      const writeLogged: typeof writeBatched = (write, delivery) =>
        writeBatched(write, { ...delivery, decide: (s, context) => Effect.map(delivery.decide(s, context), (d) => withChangeLog(s, d, context)) })
      localWrite = writeLogged

      /** Changes the guild list under the write lock, so a batch never publishes over it. */
      const withGuilds = (change: (guilds: Set<GuildId>) => void) =>
        lock.withPermits(1)(Effect.flatMap(current, (s) =>
          Effect.sync(() => {
            if (s === undefined) return
            const guilds = new Set(s.guilds)
            change(guilds)
            track({ ...s, guilds })
          })))

      return User.of({
        // Every write comes through the mailbox, so it may be a redelivery: its operation id is looked up.
        Write: ({ payload }) => {
          const definition = writeOf(payload.command._tag)
          if (definition === undefined) return Effect.die(new Error(`no user write ${payload.command._tag}`))
          const write = { operationId: payload.operationId, actorId: payload.actorId, reason: null, now: payload.now }
          return writeLogged(write, { fresh: false, decide: (s, context) => definition.execute(s, payload.command, context) }).pipe(
            Effect.catchTag("ActorStopped", () => Effect.interrupt),
            Rpc.fork
          )
        },

        Read: ({ payload }) => answerRead("user", readOf, existing)(payload).pipe(Rpc.fork),

        Refresh: ({ payload }) =>
          lock.withPermits(1)(Effect.gen(function*() {
            // An actor that was not loaded reads everything now: its account is as fresh as it gets.
            const loadedBefore = isLoaded()
            let next = yield* existing
            if (loadedBefore) {
              const facts = yield* repo.account(userId)
              if (facts === undefined) {
                track(undefined)
                return yield* unknown("USER")
              }
              // The flow committed already: its change is logged after it, in a statement of its own.
              yield* repo.logChanges(userId, payload.actorId ?? userId, accountChanges(next.account, facts.account))
              next = { ...next, ...facts }
              track(next)
            }
            const view = privateViewJson(privateView(next))
            yield* events.publish([userId], { type: "USER_UPDATE", data: view })
            return view
          })),

        Joined: ({ payload }) => withGuilds((guilds) => void guilds.add(payload.guildId)),
        Left: ({ payload }) => withGuilds((guilds) => void guilds.delete(payload.guildId))
      })
    }),
    { maxIdleTime: options.maxIdleTime, defectRetryPolicy: actorRestarts }
  )
