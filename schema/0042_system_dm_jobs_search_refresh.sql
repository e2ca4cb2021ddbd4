-- System DM jobs and search index refreshes (issue 23). Both are carried out by a sweep
-- every API process runs, as the operators' message jobs of 0036: a process claims a
-- job for a lease (`claimed_until`) and renews it before each batch, so a job whose
-- process died is taken again when the lease runs out.

-- POST /admin/system-dm-jobs: a message staff send as the system user to every user
-- registered in a date range, but for the members of the excluded guilds. A job waits
-- for an operator's approval (`pending`), then runs: `approved` until a process takes
-- it and lists its targets, `running` while it sends, then `completed` (or `failed`).
CREATE TABLE system_dm_jobs (
  id                  bigint PRIMARY KEY,
  content             text NOT NULL,
  -- The operators (a user's or an API key's id), as the admin audit log names them.
  created_by          text NOT NULL,
  approved_by         text,
  excluded_guild_ids  bigint[] NOT NULL DEFAULT '{}',
  registration_start  timestamptz,
  registration_end    timestamptz,
  status              text NOT NULL DEFAULT 'pending',
  -- Estimated at creation, exact once the targets are listed.
  target_count        integer NOT NULL DEFAULT 0,
  sent_count          integer NOT NULL DEFAULT 0,
  failed_count        integer NOT NULL DEFAULT 0,
  last_error          text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  approved_at         timestamptz,
  completed_at        timestamptz,
  claimed_until       timestamptz
);

-- The sweep asks for approved and running jobs only.
CREATE INDEX system_dm_jobs_open ON system_dm_jobs (id) WHERE status IN ('approved', 'running');

-- Who a running job has left to message: a row per user, removed (and counted) once
-- their message is sent or refused. `operation_id` is the send's idempotency key, set
-- and committed before the send: the DM actor records every write it commits under its
-- operation id (actor_operations), so a send repeated after a crash answers the first
-- one's message instead of sending another.
CREATE TABLE system_dm_job_targets (
  job_id        bigint NOT NULL REFERENCES system_dm_jobs (id) ON DELETE CASCADE,
  user_id       bigint NOT NULL,
  operation_id  bigint,
  PRIMARY KEY (job_id, user_id)
);

-- POST /admin/search/refresh-index: the full-text data of messages rebuilt, for one
-- guild's messages, one user's, or every index at once.
CREATE TABLE search_refresh_jobs (
  id             bigint PRIMARY KEY,
  -- guild | user | all
  index_type     text NOT NULL,
  -- The guild's or the user's id; null for `all`.
  subject_id     bigint,
  admin_id       text NOT NULL,
  -- in_progress | completed | failed
  status         text NOT NULL DEFAULT 'in_progress',
  -- Rows (guild, user) or indexes (all) to go through, and those done; null until counted.
  total          integer,
  processed      integer NOT NULL DEFAULT 0,
  -- Where the walk stands: the last (channel_id, id) rewritten, or the indexes rebuilt.
  cursor_channel bigint,
  cursor_message bigint,
  started_at     timestamptz NOT NULL DEFAULT now(),
  completed_at   timestamptz,
  failed_at      timestamptz,
  error          text,
  claimed_until  timestamptz
);

CREATE INDEX search_refresh_jobs_open ON search_refresh_jobs (id) WHERE status = 'in_progress';
