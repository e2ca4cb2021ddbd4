-- Data exports (issue 23): a user's own harvest (POST /users/@me/harvest) and staff's
-- archives of a user or a guild (POST /admin/archives/*) are one kind of job. Every API
-- process runs a sweep that claims a pending job for a lease (`claimed_until`), renews it
-- page after page, and writes the zip to a temporary file; only a finished zip goes to
-- the media store, and only then does the row get its `file_hash`. A job whose process
-- died is taken again when the lease runs out and written again from the start.
CREATE TABLE archives (
  id                       bigint PRIMARY KEY,
  -- user | guild
  subject_type             text NOT NULL,
  subject_id               bigint NOT NULL,
  -- Who asked: the user themself for a harvest, otherwise the operator (a user's or an API key's id).
  requested_by             text NOT NULL,
  -- Asked for by the subject (GET /users/@me/harvest shows these only; the user is mailed when it is ready).
  harvest                  boolean NOT NULL,
  -- pending | processing | completed | failed (HarvestStatusResponseSchema).
  status                   text NOT NULL DEFAULT 'pending',
  progress_percent         integer NOT NULL DEFAULT 0,
  progress_step            text,
  created_at               timestamptz NOT NULL DEFAULT now(),
  started_at               timestamptz,
  completed_at             timestamptz,
  failed_at                timestamptz,
  error_message            text,
  -- The zip in the media store (its SHA-256) once complete, and its size in bytes.
  file_hash                text,
  file_size                bigint,
  -- When the zip is removed (by the sweep); the last download URL handed out expires at
  -- download_url_expires_at. Download URLs are signed with signing_key, this archive's own.
  expires_at               timestamptz,
  download_url_expires_at  timestamptz,
  signing_key              bytea NOT NULL,
  -- Claims so far: a job that keeps killing its process fails instead of looping.
  attempts                 integer NOT NULL DEFAULT 0,
  claimed_until            timestamptz
);

-- The sweep asks for unfinished jobs only.
CREATE INDEX archives_open ON archives (id) WHERE status IN ('pending', 'processing');
-- A subject's archives, newest first (GET /users/@me/harvest/latest, POST /admin/archives/list).
CREATE INDEX archives_subject ON archives (subject_type, subject_id, id DESC);
-- Zips due for removal.
CREATE INDEX archives_stored ON archives (expires_at) WHERE file_hash IS NOT NULL;
-- One harvest of a user running at a time, whatever two requests race.
CREATE UNIQUE INDEX archives_one_open_harvest ON archives (subject_id)
  WHERE harvest AND status IN ('pending', 'processing');
