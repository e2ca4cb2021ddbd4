import { Config, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { heldAmong } from "../../../shards/actors/LegalHolds.ts"
import { adminDeleteDmMessages } from "../../../shards/dm/operations/AdminMessages.ts"
import { adminDeleteAuthorMessages } from "../../../shards/guild/operations/AdminMessages.ts"
import { Dms } from "../../dms/Dms.ts"
import { Actors } from "../../guilds/Actors.ts"
import { CarriedId } from "../../model/Ids.ts"
import { AppConfig, intSetting } from "../../platform/Config.ts"
import { AdminMessageJobs, type ClaimedJob, type JobBatch } from "./JobsRepo.ts"
import { AdminMessageReads } from "./Reads.ts"
import { runClaimed, sweepEvery } from "../../platform/Sweeps.ts"

/** Jobs one run takes at most; the rest wait for the next run (or another process). */
const PER_RUN = 10

/**
 * ADMIN_MESSAGE_JOB_BATCH: messages one actor write deletes at most, so a
 * guild's transaction stays small and its other writes get their turn;
 * ADMIN_MESSAGE_JOB_PAUSE_MS: a rest between two batches, to spread a big
 * job's load; ADMIN_MESSAGE_JOB_SWEEP_SECONDS: how often each API process
 * looks for jobs to take.
 */
const settings = Config.all({
  batch: intSetting(1, "ADMIN_MESSAGE_JOB_BATCH", 100),
  pauseMillis: intSetting(0, "ADMIN_MESSAGE_JOB_PAUSE_MS", 0),
  sweepSeconds: intSetting(1, "ADMIN_MESSAGE_JOB_SWEEP_SECONDS", 5)
})

/**
 * Carries out the operators' shred and delete-all jobs: batch after batch,
 * each of one guild (or DM channel), the author's messages among the batch's
 * rows go through that actor (AdminDeleteAuthorMessages, AdminDelete), so
 * windows and events are those of a moderator's sweep. Messages gone, not the
 * author's, or under a legal hold are skipped and counted. The claim is
 * renewed before each batch. A batch the actor refuses (but for a guild or
 * channel gone meanwhile) fails the job; one it did not answer (503) ends the
 * run for the job, which is taken again when its lease runs out.
 */
export const runAdminMessageJobs = (batchSize: number, pauseMillis: number) =>
  Effect.gen(function*() {
    const jobs = yield* AdminMessageJobs
    const reads = yield* AdminMessageReads
    const actors = yield* Actors
    const dms = yield* Dms
    const sql = yield* SqlClient.SqlClient
    const { actorCallTimeoutMillis } = yield* AppConfig
    const leaseSeconds = Math.ceil((actorCallTimeoutMillis * 3) / 1000) + 5 + Math.ceil(pauseMillis / 1000)

    const deleteBatch = (job: ClaimedJob, batch: JobBatch) =>
      Effect.gen(function*() {
        const found = yield* reads.authoredAmong(job.userId, batch.entries)
        const held = yield* Effect.provideService(heldAmong(found.map((m) => m.id)), SqlClient.SqlClient, sql)
        const doomed = found.filter((m) => !held.has(m.id))
        const write = batch.dm
          ? dms.write(batch.ownerId, adminDeleteDmMessages, {
            authorId: job.userId,
            messages: doomed.map((m) => ({ id: m.id, content: m.content }))
          }, { actorId: job.adminId })
          : actors.write(CarriedId.GuildId.make(batch.ownerId), adminDeleteAuthorMessages, {
            authorId: CarriedId.UserId.make(job.userId),
            messages: doomed.map((m) => ({ channelId: m.channelId, id: m.id }))
          }, { actorId: job.adminId })
        // A guild or channel deleted since the read took its messages with it: they count as skipped.
        const deleted = doomed.length === 0
          ? 0
          : yield* write.pipe(Effect.as(doomed.length), Effect.catch((e) => (e._tag === "NotFound" ? Effect.succeed(0) : Effect.fail(e))))
        yield* jobs.finishBatch(job.id, batch, deleted, batch.entries.length - deleted)
      })

    const runOne = (job: ClaimedJob) =>
      Effect.gen(function*() {
        while (yield* jobs.renew(job.id, leaseSeconds)) {
          const batch = yield* jobs.nextBatch(job.id, batchSize)
          if (batch === undefined) return yield* jobs.complete(job.id)
          yield* deleteBatch(job, batch)
          if (pauseMillis > 0) yield* Effect.sleep(`${pauseMillis} millis`)
        }
      })

    return yield* runClaimed(
      jobs.claim(leaseSeconds),
      (job) =>
        runOne(job).pipe(
          Effect.catch((e) =>
            e._tag === "Unavailable"
              ? Effect.logWarning("admin message job batch unanswered; retried when the lease runs out", job.id, e)
              : jobs.fail(job.id, `${e.code}: ${e.message}`))
        ),
      PER_RUN
    )
  })

/** Runs `runAdminMessageJobs` every ADMIN_MESSAGE_JOB_SWEEP_SECONDS in each API process, for as long as it lives. */
export const adminMessageJobsSweep = Layer.effectDiscard(
  Effect.gen(function*() {
    const { batch, pauseMillis, sweepSeconds } = yield* settings
    const context = yield* Effect.context<AppConfig | AdminMessageJobs | AdminMessageReads | Actors | Dms | SqlClient.SqlClient>()
    const run = runAdminMessageJobs(batch, pauseMillis).pipe(Effect.provideContext(context))
    yield* sweepEvery(run, sweepSeconds, "admin message job run")
  })
).pipe(Layer.provide([AdminMessageJobs.layer, AdminMessageReads.layer, Dms.layer]))
