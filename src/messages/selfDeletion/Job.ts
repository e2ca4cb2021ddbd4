import { Effect, Layer, Schedule } from "effect"
import { deleteOwnMessages } from "../../../shards/guild/operations/MessageJobs.ts"
import { AppConfig } from "../../platform/Config.ts"
import { Actors } from "../../guilds/Actors.ts"
import { UserActors } from "../../guilds/UserActors.ts"
import { refreshAccountOrLog } from "../../users/AccountRefresh.ts"
import { AuthorMessagesRepo } from "../AuthorMessagesRepo.ts"
import { SelfDeletionRepo } from "./Repo.ts"

/** Messages one actor write deletes at most: one guild's transaction stays small, other writes get their turn. */
export const BATCH = 100

/** Jobs one run takes at most; the rest wait for the next run (or another process). */
const PER_RUN = 10

/**
 * Carries out the due self-service deletions: batch after batch, the user's
 * oldest guild messages up to the request's time are deleted through their
 * guild's actor (DeleteOwnMessages), so windows and MESSAGE_DELETE events are
 * those of deleting them by hand. The claim is renewed before each batch; a
 * cancelled job stops there. A batch the actor refuses ends the run for that
 * job; its lease runs out and it is tried again later.
 */
export const runDueDeletions = Effect.gen(function*() {
  const jobs = yield* SelfDeletionRepo
  const authorMessages = yield* AuthorMessagesRepo
  const actors = yield* Actors
  const userActors = yield* UserActors
  const { actorCallTimeoutMillis } = yield* AppConfig
  const leaseSeconds = Math.ceil((actorCallTimeoutMillis * 3) / 1000) + 5

  const runOne = (userId: string, cutoffId: string) =>
    Effect.gen(function*() {
      while (yield* jobs.renew(userId, leaseSeconds)) {
        const batch = yield* authorMessages.nextBatch(userId, cutoffId, BATCH)
        if (batch === undefined) {
          yield* jobs.finish(userId)
          // The job no longer shows on GET /users/@me.
          return yield* refreshAccountOrLog(userActors, userId)
        }
        yield* actors.write(batch.guildId, deleteOwnMessages, { messages: batch.messages }, { actorId: userId })
      }
    })

  let done = 0
  while (done < PER_RUN) {
    const job = yield* jobs.claimDue(leaseSeconds)
    if (job === undefined) break
    done++
    yield* runOne(job.userId, job.cutoffId).pipe(
      Effect.catch((e) => Effect.logWarning("message deletion batch failed; retried when the lease runs out", job.userId, e))
    )
  }
  return done
})

/** Runs `runDueDeletions` every `MESSAGE_DELETION_SWEEP_SECONDS` in each API process, for as long as it lives. */
export const selfDeletionJob = Layer.effectDiscard(
  Effect.gen(function*() {
    const { messageDeletionSweepSeconds } = yield* AppConfig
    const context = yield* Effect.context<AppConfig | SelfDeletionRepo | AuthorMessagesRepo | Actors | UserActors>()
    const run = runDueDeletions.pipe(
      Effect.provideContext(context),
      // A failed run is retried by the next one; the loop itself must not die.
      Effect.catchCause((cause) => Effect.logWarning("message deletion run failed", cause))
    )
    yield* run.pipe(Effect.repeat(Schedule.spaced(`${messageDeletionSweepSeconds} seconds`)), Effect.forkScoped)
  })
).pipe(Layer.provide([SelfDeletionRepo.layer, AuthorMessagesRepo.layer]))
