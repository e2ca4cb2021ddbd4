import { Schema } from "effect"

const ArchiveStatus = Schema.Literals(["pending", "processing", "completed", "failed"])
const NullableString = Schema.NullOr(Schema.String)

export const HarvestCreationResponse = Schema.Struct({
  harvest_id: Schema.String,
  status: ArchiveStatus,
  created_at: Schema.String
})

export const HarvestStatusResponse = Schema.Struct({
  harvest_id: Schema.String,
  status: ArchiveStatus,
  created_at: Schema.String,
  started_at: NullableString,
  completed_at: NullableString,
  failed_at: NullableString,
  file_size: NullableString,
  progress_percent: Schema.Number,
  progress_step: NullableString,
  error_message: NullableString,
  download_url_expires_at: NullableString,
  expires_at: NullableString
})

export const HarvestDownloadUrlResponse = Schema.Struct({ download_url: Schema.String, expires_at: Schema.String })

export const SubjectType = Schema.Literals(["user", "guild"])

export const AdminArchiveResponse = Schema.Struct({
  archive_id: Schema.String,
  requested_by: Schema.String,
  subject_id: Schema.String,
  subject_type: SubjectType,
  requested_at: Schema.String,
  started_at: NullableString,
  completed_at: NullableString,
  failed_at: NullableString,
  expires_at: NullableString,
  download_url_expires_at: NullableString,
  file_size: NullableString,
  error_message: NullableString,
  progress_step: NullableString,
  progress_percent: Schema.Number
})

/** DownloadUrlResponseSchema, camel-cased as production's admin API answers it. */
export const DownloadUrlResponse = Schema.Struct({ downloadUrl: Schema.String, expiresAt: Schema.String })
