import { Config, Effect, Layer, Schedule } from "effect"
import { type ClaimedRefresh, SEARCH_INDEXES, SearchRefreshJobs } from "./JobsRepo.ts"
import { intSetting } from "../../platform/Config.ts"
import { runClaimed, sweepEvery } from "../../platform/Sweeps.ts"

/** Jobs one run takes at most; the rest wait for the next run (or another process). */
const PER_RUN = 10

/**
 * SEARCH_REFRESH_BATCH: messages one transaction rewrites (guild and user
 * refreshes); SEARCH_REFRESH_PAUSE_MS: a rest between two batches, to spread the
 * load; SEARCH_REFRESH_SWEEP_SECONDS: how often each API process looks for jobs;
 * SEARCH_REFRESH_LEASE_SECONDS: how long a claim lasts without renewal (renewed
 * every third of it while an index rebuilds, however long that takes).
 */
const settings = Config.all({
  batch: intSetting(1, "SEARCH_REFRESH_BATCH", 500),
  pauseMillis: intSetting(0, "SEARCH_REFRESH_PAUSE_MS", 0),
  sweepSeconds: intSetting(1, "SEARCH_REFRESH_SWEEP_SECONDS", 5),
  leaseSeconds: intSetting(1, "SEARCH_REFRESH_LEASE_SECONDS", 60)
})

/**
 * Carries out search index refreshes (JobsRepo.ts says what each kind does).
 * The claim is renewed before each batch, and all along while one index
 * rebuilds; a failure fails the job with its error.
 */
export const runSearchRefreshJobs = (options: { readonly batch: number; readonly pauseMillis: number; readonly leaseSeconds: number }) =>
  Effect.gen(function*() {
    const jobs = yield* SearchRefreshJobs
    const { batch, pauseMillis, leaseSeconds } = options

    /** `effect` with the job's claim renewed every third of the lease while it runs. */
    const keepingClaim = <A>(jobId: string, effect: Effect.Effect<A>) =>
      Effect.raceFirst(
        effect,
        jobs.renew(jobId, leaseSeconds).pipe(Effect.repeat(Schedule.spaced(`${Math.max(1, Math.floor(leaseSeconds / 3))} seconds`)), Effect.andThen(Effect.never))
      )

    const runOne = (claimed: ClaimedRefresh) =>
      Effect.gen(function*() {
        if (claimed.total === null) yield* jobs.count(claimed)
        if (claimed.indexType === "all") {
          for (let index = claimed.processed; index < SEARCH_INDEXES.length; index++) {
            if (!(yield* jobs.renew(claimed.id, leaseSeconds))) return
            yield* keepingClaim(claimed.id, jobs.rebuildIndex(claimed.id, index))
          }
          return yield* jobs.complete(claimed.id)
        }
        let job = claimed
        while (yield* jobs.renew(job.id, leaseSeconds)) {
          const { rewritten, cursor } = yield* jobs.rewriteBatch(job, batch).pipe(
            Effect.retry({ times: 3, schedule: Schedule.exponential("200 millis") }),
            Effect.orDie
          )
          if (rewritten === 0) return yield* jobs.complete(job.id)
          job = { ...job, cursor }
          if (pauseMillis > 0) yield* Effect.sleep(`${pauseMillis} millis`)
        }
      })

    return yield* runClaimed(
      jobs.claim(leaseSeconds),
      (job) =>
        runOne(job).pipe(
          // Stopping (interrupted) leaves the job to the next claim; anything else fails it.
          Effect.catchDefect((defect) =>
            Effect.andThen(Effect.logWarning("search refresh failed", job.id, defect), jobs.fail(job.id, String(defect).slice(0, 500))))
        ),
      PER_RUN
    )
  })

/** Runs `runSearchRefreshJobs` every SEARCH_REFRESH_SWEEP_SECONDS in each API process, for as long as it lives. */
export const searchRefreshSweep = Layer.effectDiscard(
  Effect.gen(function*() {
    const { sweepSeconds, ...options } = yield* settings
    const context = yield* Effect.context<SearchRefreshJobs>()
    const run = runSearchRefreshJobs(options).pipe(Effect.provideContext(context))
    yield* sweepEvery(run, sweepSeconds, "search refresh run")
  })
).pipe(Layer.provide(SearchRefreshJobs.layer))
