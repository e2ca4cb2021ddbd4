import { Config } from "effect"
import { intSetting as atLeast } from "../platform/Config.ts"

/**
 * ARCHIVE_JOB_SWEEP_SECONDS: how often each API process looks for exports to
 * run; ARCHIVE_JOB_LEASE_SECONDS: how long a claim lasts unrenewed (a dead
 * process's export is taken again after it); ARCHIVE_PAGE_SIZE: rows read
 * from Postgres at once; ARCHIVE_PAGE_PAUSE_MS: a rest after each page, to
 * spread a big export's load; ARCHIVE_RETENTION_DAYS: how long a finished zip
 * is kept; ARCHIVE_DOWNLOAD_URL_SECONDS: how long a download URL works;
 * HARVEST_COOLDOWN_HOURS: the least time between two harvests of one user.
 */
export const archiveSettings = Config.all({
  sweepSeconds: atLeast(1, "ARCHIVE_JOB_SWEEP_SECONDS", 5),
  leaseSeconds: atLeast(1, "ARCHIVE_JOB_LEASE_SECONDS", 60),
  pageSize: atLeast(1, "ARCHIVE_PAGE_SIZE", 1000),
  pauseMillis: atLeast(0, "ARCHIVE_PAGE_PAUSE_MS", 0),
  retentionDays: atLeast(1, "ARCHIVE_RETENTION_DAYS", 7),
  downloadUrlSeconds: atLeast(1, "ARCHIVE_DOWNLOAD_URL_SECONDS", 3600),
  harvestCooldownHours: atLeast(0, "HARVEST_COOLDOWN_HOURS", 24)
})
export type ArchiveSettings = Config.Success<typeof archiveSettings>
