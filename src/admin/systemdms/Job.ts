import { Config, Effect, Layer } from "effect"
import { sendMessage } from "../../../shards/dm/operations/Messages.ts"
import { Dms } from "../../dms/Dms.ts"
import { DmsRepo } from "../../dms/Repo.ts"
import { DmWriteInputs } from "../../dms/WriteInputs.ts"
import { AppConfig, intSetting } from "../../platform/Config.ts"
import { Snowflakes } from "../../platform/Snowflake.ts"
import { type ClaimedSystemDmJob, type SystemDmTarget, SystemDmJobs } from "./JobsRepo.ts"
import { runClaimed, sweepEvery } from "../../platform/Sweeps.ts"

/** Jobs one run takes at most; the rest wait for the next run (or another process). */
const PER_RUN = 10

/** Sends of a batch in flight at once: each goes to its own DM channel's actor. */
const CONCURRENCY = 8

/**
 * SYSTEM_DM_JOB_BATCH: users one batch messages (their operation ids committed
 * together before any is sent); SYSTEM_DM_JOB_PAUSE_MS: a rest between two
 * batches, to spread a big job's load; SYSTEM_DM_JOB_SWEEP_SECONDS: how often
 * each API process looks for approved jobs to take.
 */
const settings = Config.all({
  batch: intSetting(1, "SYSTEM_DM_JOB_BATCH", 100),
  pauseMillis: intSetting(0, "SYSTEM_DM_JOB_PAUSE_MS", 0),
  sweepSeconds: intSetting(1, "SYSTEM_DM_JOB_SWEEP_SECONDS", 5)
})

/**
 * Carries out approved system DM jobs: batch after batch of targets, each sent
 * the job's content as a DM from the system user through the DM channel's actor
 * (so the channel opens for them with CHANNEL_CREATE and MESSAGE_CREATE, as any
 * first DM). A send the actor refuses (a block) counts as failed with its error;
 * one it did not answer (503) ends the run for the job, which is taken again
 * when its lease runs out and sends that target again under the same operation
 * id: never twice (JobsRepo.ts says why).
 */
export const runSystemDmJobs = (batchSize: number, pauseMillis: number) =>
  Effect.gen(function*() {
    const jobs = yield* SystemDmJobs
    const dms = yield* Dms
    const dmsRepo = yield* DmsRepo
    const inputs = yield* DmWriteInputs
    const snowflakes = yield* Snowflakes
    const { actorCallTimeoutMillis } = yield* AppConfig
    const batchRounds = Math.ceil(batchSize / CONCURRENCY)
    const leaseSeconds = Math.ceil((actorCallTimeoutMillis * 2 * batchRounds) / 1000) + 5 + Math.ceil(pauseMillis / 1000)
    const newId = () => snowflakes.next()

    const sendTo = (job: ClaimedSystemDmJob, systemUserId: string, target: SystemDmTarget) =>
      Effect.gen(function*() {
        // A user deleted since the targets were listed has no channel to have (its rows are gone).
        const channel = yield* dmsRepo.dmBetween(systemUserId, target.userId, newId()).pipe(
          Effect.map((id) => ({ id })),
          Effect.catchDefect((defect) => Effect.succeed({ error: `DM_CHANNEL_UNAVAILABLE: ${String(defect).slice(0, 300)}` }))
        )
        if ("error" in channel) return yield* jobs.finishTarget(job.id, target.userId, { sent: false, error: channel.error })
        const channelId = channel.id
        const blocked = yield* inputs.blocked(channelId, systemUserId)
        const outcome = yield* dms.writeJson(channelId, sendMessage, {
          blocked,
          request: { content: job.content },
          stickers: { usable: [], guild: [] }
        }, { actorId: systemUserId, operationId: target.operationId }).pipe(
          Effect.as({ sent: true as const }),
          Effect.catch((e) => e._tag === "Unavailable" ? Effect.fail(e) : Effect.succeed({ sent: false as const, error: `${e.code}: ${e.message}` }))
        )
        yield* jobs.finishTarget(job.id, target.userId, outcome)
      })

    const runOne = (job: ClaimedSystemDmJob) =>
      Effect.gen(function*() {
        const systemUserId = yield* jobs.systemUser(newId())
        while (yield* jobs.renew(job.id, leaseSeconds)) {
          const batch = yield* jobs.prepareBatch(job.id, batchSize, newId)
          if (batch.length === 0) return yield* jobs.complete(job.id)
          yield* Effect.forEach(batch, (target) => sendTo(job, systemUserId, target), { concurrency: CONCURRENCY, discard: true })
          if (pauseMillis > 0) yield* Effect.sleep(`${pauseMillis} millis`)
        }
      })

    return yield* runClaimed(
      jobs.claim(leaseSeconds),
      (job) =>
        runOne(job).pipe(
          Effect.catch((e) => Effect.logWarning("system DM send unanswered; the job goes on when its lease runs out", job.id, e))
        ),
      PER_RUN
    )
  })

/** Runs `runSystemDmJobs` every SYSTEM_DM_JOB_SWEEP_SECONDS in each API process, for as long as it lives. */
export const systemDmJobsSweep = Layer.effectDiscard(
  Effect.gen(function*() {
    const { batch, pauseMillis, sweepSeconds } = yield* settings
    const context = yield* Effect.context<AppConfig | SystemDmJobs | Dms | DmsRepo | DmWriteInputs | Snowflakes>()
    const run = runSystemDmJobs(batch, pauseMillis).pipe(Effect.provideContext(context))
    yield* sweepEvery(run, sweepSeconds, "system DM job run")
  })
).pipe(Layer.provide([SystemDmJobs.layer, Dms.layer, DmsRepo.layer, DmWriteInputs.layer]))
