import { isoTimestamp, isoTimestampOrNull } from "../platform/Timestamps.ts"
import type { ArchiveRow } from "./Repo.ts"

/** What the user sees of their harvest (HarvestStatusResponseSchema). */
export const harvestView = (row: ArchiveRow) => ({
  harvest_id: row.id,
  status: row.status,
  created_at: isoTimestamp(row.created_at),
  started_at: isoTimestampOrNull(row.started_at),
  completed_at: isoTimestampOrNull(row.completed_at),
  failed_at: isoTimestampOrNull(row.failed_at),
  file_size: row.file_size,
  progress_percent: row.progress_percent,
  progress_step: row.progress_step,
  error_message: row.error_message,
  download_url_expires_at: isoTimestampOrNull(row.download_url_expires_at),
  expires_at: isoTimestampOrNull(row.expires_at)
})

/** What an operator sees of an archive (AdminArchiveResponseSchema). */
export const adminArchiveView = (row: ArchiveRow) => ({
  archive_id: row.id,
  requested_by: row.requested_by,
  subject_id: row.subject_id,
  subject_type: row.subject_type,
  requested_at: isoTimestamp(row.created_at),
  started_at: isoTimestampOrNull(row.started_at),
  completed_at: isoTimestampOrNull(row.completed_at),
  failed_at: isoTimestampOrNull(row.failed_at),
  expires_at: isoTimestampOrNull(row.expires_at),
  download_url_expires_at: isoTimestampOrNull(row.download_url_expires_at),
  file_size: row.file_size,
  error_message: row.error_message,
  progress_step: row.progress_step,
  progress_percent: row.progress_percent
})
