import { Effect, Layer } from "effect"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { Mailer } from "../mail/Mailer.ts"
import { MediaStore } from "../media/MediaStore.ts"
import { AppConfig } from "../platform/Config.ts"
import { LeaseLost, type Tick, writeGuildArchive, writeUserArchive } from "./Contents.ts"
import { ArchiveReads } from "./Reads.ts"
import { type ClaimedArchive, ArchivesRepo } from "./Repo.ts"
import { archiveSettings, type ArchiveSettings } from "./Settings.ts"
import { zipAt } from "./Zip.ts"
import { runClaimed, sweepEvery } from "../platform/Sweeps.ts"

/** Jobs one run takes at most, and expired zips it removes at most. */
const PER_RUN = 5
const EXPIRED_PER_RUN = 100

/** A scratch directory for the scope, removed with what is left in it. */
const scratchDirectory = Effect.acquireRelease(
  Effect.promise(() => Fs.mkdtemp(Path.join(Os.tmpdir(), "guildhall-archive-"))),
  (dir) => Effect.promise(() => Fs.rm(dir, { recursive: true, force: true }))
)

/**
 * Carries out pending exports: each claimed job writes its zip to a scratch
 * file from the start (ArchiveReads, Contents.ts), renewing the claim and
 * recording the progress after every step and page; only the finished zip
 * goes to the media store, and only then is the archive complete, so nothing
 * half-written is ever served. A job whose claim was lost stops (its new
 * claimer writes it again); one whose subject is gone fails; a store that
 * fails leaves the job to be taken again when its lease runs out. The user is
 * mailed once their harvest is ready. Expired zips are removed.
 */
export const runArchiveJobs = (settings: ArchiveSettings) =>
  Effect.gen(function*() {
    const repo = yield* ArchivesRepo
    const store = yield* MediaStore
    const mailer = yield* Mailer
    const reads = yield* ArchiveReads
    const { publicUrl } = yield* AppConfig

    const tickOf = (job: ClaimedArchive): Tick => (step, percent) =>
      Effect.gen(function*() {
        if (!(yield* repo.renew(job, settings.leaseSeconds))) return yield* new LeaseLost()
        yield* repo.progress(job, percent, step)
        if (settings.pauseMillis > 0) yield* Effect.sleep(`${settings.pauseMillis} millis`)
      })

    const notify = (job: ClaimedArchive) =>
      Effect.gen(function*() {
        const email = yield* reads.email(job.subjectId)
        if (email === undefined) return
        yield* mailer.send({
          to: email,
          subject: "Your data export is ready",
          text: `The copy of your data you asked for is ready. Sign in at ${publicUrl} and download it ` +
            `from your privacy settings within ${settings.retentionDays} days; after that it is deleted.`
        })
      }).pipe(Effect.catch((e) => Effect.logWarning("archive ready mail not sent", job.id, e.message)))

    const runOne = (job: ClaimedArchive) =>
      Effect.gen(function*() {
        const dir = yield* scratchDirectory
        const path = Path.join(dir, "archive.zip")
        const zip = yield* zipAt(path)
        const tick = tickOf(job)
        yield* job.subjectType === "user"
          ? writeUserArchive(zip, job.subjectId, settings.pageSize, tick)
          : writeGuildArchive(zip, job.subjectId, settings.pageSize, tick)
        const file = yield* zip.finish
        yield* tick("storing", 97)
        yield* store.putFile(path, file.hash, file.size)
        const completed = yield* repo.complete(job, file, settings.retentionDays)
        if (completed && job.harvest) yield* notify(job)
      }).pipe(
        Effect.scoped,
        Effect.provideService(ArchiveReads, reads),
        Effect.catchTags({
          SubjectGone: (e) => repo.fail(job, e.message),
          LeaseLost: () => Effect.logInfo("archive job taken by another process", job.id),
          ObjectStoreError: (e) => Effect.logWarning("archive not stored; retried when the lease runs out", job.id, e.message)
        })
      )

    const removeExpired = Effect.gen(function*() {
      for (const archive of yield* repo.expired(EXPIRED_PER_RUN)) {
        if (!archive.shared) yield* store.remove(archive.hash)
        yield* repo.forgetFile(archive.id)
      }
    }).pipe(Effect.catchTag("ObjectStoreError", (e) => Effect.logWarning("expired archive not removed; retried next run", e.message)))

    const done = yield* runClaimed(repo.claim(settings.leaseSeconds), runOne, PER_RUN)
    yield* removeExpired
    return done
  })

/** Runs `runArchiveJobs` every ARCHIVE_JOB_SWEEP_SECONDS in each API process, for as long as it lives. */
export const archiveJobsSweep = Layer.effectDiscard(
  Effect.gen(function*() {
    const settings = yield* archiveSettings
    const context = yield* Effect.context<AppConfig | ArchivesRepo | ArchiveReads | MediaStore | Mailer>()
    const run = runArchiveJobs(settings).pipe(Effect.provideContext(context))
    yield* sweepEvery(run, settings.sweepSeconds, "archive job run")
  })
).pipe(Layer.provide([ArchivesRepo.layer, ArchiveReads.layer]))
