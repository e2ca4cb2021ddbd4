import { Duration, Effect, Schema, Semaphore } from "effect"
import { Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { GuildResponse } from "../../src/model/Guilds.ts"
import { invalidField, unknown } from "../../src/model/Errors.ts"
import { CarriedId } from "../../src/model/Ids.ts"
import { Limits } from "../../src/platform/Limits.ts"
import { answerRead, measuredLoad } from "../actors/Mailbox.ts"
import { LiveActors } from "../LiveActors.ts"
import { User } from "../user/Protocol.ts"
import { GuildEvents, reloadEvents, shutdownEvents } from "./Events.ts"
import { readOf, writeOf } from "./operations/index.ts"
import { Guild } from "./Protocol.ts"
import { type CommittedWrite, GuildRepo } from "./Repo.ts"
import * as Reads from "./Reads.ts"
import { createGuild, type GuildState } from "./State.ts"
import { viewFor } from "./Views.ts"
import { type ActorStopped, type Delivery, makeWriteBatches } from "./WriteBatches.ts"
import type { GuildError } from "./Definitions.ts"
import { permanentRefusal, refusalError } from "../actors/Refusals.ts"
import { actorRestarts } from "../actors/Restarts.ts"

const decodeGuild = Schema.decodeUnknownSync(GuildResponse)

/**
 * One guild's actor: the only writer of its guild. State is loaded from
 * Postgres on first use, every change is committed before the reply, and
 * reads are answered from memory concurrently with each other.
 */
export const GuildActor = (options: { readonly maxIdleTime: Duration.Input }) =>
  Guild.toLayer(
    Effect.gen(function*() {
      // The entity id is the guild's id, which our own generator made.
      const guildId = CarriedId.GuildId.make((yield* Entity.CurrentAddress).entityId)
      const repo = yield* GuildRepo
      const live = yield* LiveActors
      const users = yield* User.client
      const events = yield* GuildEvents
      const limits = yield* Limits
      const loading = Semaphore.makeUnsafe(1)
      let state: GuildState | undefined
      let loaded = false
      // Set by Shutdown: sessions were told the guild is unavailable, so its next load tells them it is back.
      let announceReturn = false
      let localWrite: (write: CommittedWrite, delivery: Delivery) => Effect.Effect<string, GuildError | ActorStopped> = () =>
        Effect.die(new Error("not started"))

      const track = (next: GuildState | undefined) => {
        state = next
        loaded = true
        if (next === undefined) {
          live.guilds.delete(guildId)
          return
        }
        live.guilds.set(guildId, {
          state: next,
          write: (w, delivery) => localWrite(w, delivery),
          name: next.guild.name,
          icon: next.guild.icon,
          memberCount: next.members.size,
          memory: JSON.stringify(next.guild).length * 2 + next.members.size * 400 + next.channels.size * 300 +
            next.roles.size * 200
        })
      }
      const drop = () => {
        state = undefined
        loaded = false
        live.guilds.delete(guildId)
      }
      yield* Effect.addFinalizer(() => Effect.sync(drop))

      const load = yield* measuredLoad("guild", repo.load(guildId))
      const loadNow = Effect.flatMap(load, (s) =>
        Effect.suspend(() => {
          track(s)
          if (!announceReturn || s === undefined) return Effect.void
          announceReturn = false
          return events.publish(guildId, reloadEvents(undefined, s), s)
        }))
      // Concurrent reads may all find the actor unloaded: the permit makes one of them load.
      const reload = loading.withPermits(1)(loadNow)
      const current: Effect.Effect<GuildState | undefined> = Effect.suspend(() =>
        loaded
          ? Effect.succeed(state)
          : Effect.map(loading.withPermits(1)(Effect.suspend(() => (loaded ? Effect.void : loadNow))), () => state)
      )
      const existing = Effect.flatMap(current, (s) => (s === undefined ? Effect.fail(unknown("GUILD")) : Effect.succeed(s)))

      // Whatever replaces the state waits for a batch of writes to finish, and they for it.
      const writing = Semaphore.makeUnsafe(1)
      const changing = writing.withPermits(1)
      const writeBatched = yield* makeWriteBatches({
        guildId,
        limits: limits.get,
        current,
        storedResults: repo.operationResults,
        commit: (writes) => repo.commitWrites(guildId, writes),
        committed: (next, writes) =>
          Effect.sync(() => track(next)).pipe(
            Effect.andThen(Effect.forEach(writes, ({ decision }) => events.publish(guildId, decision.events, next), { discard: true }))
          ),
        lock: writing,
        fenceLost: drop
      })
      localWrite = writeBatched

      /** Runs a write once: a replayed operation id answers the stored result. */
      const once = <E, R>(operationId: string, write: Effect.Effect<GuildResponse, E, R>) =>
        Effect.flatMap(repo.operationResult(operationId), (stored) =>
          stored === undefined ? write : Effect.succeed(decodeGuild(stored)))

      return Guild.of({
        Create: ({ payload }) =>
          once(payload.operationId, changing(Effect.gen(function*() {
            const s = yield* current
            if (s !== undefined) return yield* Effect.fail(invalidField("id", "INVALID_FORM_BODY", "Guild exists"))
            const next = createGuild({
              guildId,
              channelId: payload.channelId,
              owner: payload.owner,
              name: payload.name,
              icon: payload.icon,
              now: new Date().toISOString()
            })
            const view = viewFor(next, payload.owner.id)
            // A guild Postgres refuses for good (bad data) is answered 400, and the engine stores that
            // as the message's final reply; only an outage dies, so the message is delivered again.
            yield* repo.insertGuild(next, payload.operationId, view).pipe(Effect.catch((error) => {
              const refusal = permanentRefusal(error)
              return refusal === undefined ? Effect.die(error) : Effect.fail(refusalError(refusal))
            }))
            track(next)
            // The user actor learns of the membership; Postgres already holds it if this is lost.
            yield* users(payload.owner.id).Joined({ guildId }).pipe(
              Effect.timeout("2 seconds"),
              Effect.ignore,
              Effect.forkDetach
            )
            return view
          }))),

        // Writes are decided one after another, in the order they arrive, and committed in
        // batches (WriteBatches.ts); the handler only queues its write and waits for the commit.
        // A write left when the actor stops is the engine's to deliver again: this handler is interrupted too.
        // A message may be a redelivery: its operation id is looked up.
        Write: ({ payload }) => {
          const definition = writeOf(payload.command._tag)
          if (definition === undefined) return Effect.die(new Error(`no guild write ${payload.command._tag}`))
          const decide: Delivery["decide"] = (s, context) => definition.execute(s, payload.command, context)
          return writeBatched(payload, { fresh: false, decide }).pipe(
            Effect.catchTag("ActorStopped", () => Effect.interrupt),
            Rpc.fork
          )
        },

        // Reads run concurrently with everything; in this process they skip the mailbox (src/guilds/Actors.ts).
        View: ({ payload }) => Effect.flatMap(existing, Reads.view(payload.userId)).pipe(Rpc.fork),

        Read: ({ payload }) => answerRead("guild", readOf, existing)(payload).pipe(Rpc.fork),

        Reload: () =>
          changing(Effect.gen(function*() {
            const before = state
            const returning = announceReturn
            yield* reload
            // A guild coming back after a shutdown was announced by its load.
            if (!returning) yield* events.publish(guildId, reloadEvents(before, state), state)
            return { found: state !== undefined }
          })),

        Shutdown: () =>
          changing(Effect.suspend(() => {
            const found = state !== undefined
            drop()
            announceReturn = found
            return Effect.as(found ? events.publish(guildId, shutdownEvents(guildId), undefined) : Effect.void, { found })
          }))
      })
    }),
    { maxIdleTime: options.maxIdleTime, defectRetryPolicy: actorRestarts }
  )
