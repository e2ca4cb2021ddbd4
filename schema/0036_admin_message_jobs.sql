-- Operators' message jobs (issue 20): POST /admin/messages/shred (named messages of one
-- author) and POST /admin/messages/delete-all (every message of one author). Both are
-- carried out by a sweep every API process runs, as the self-deletion of 0023: a process
-- claims a job for a lease (`claimed_until`) and renews it after each batch, so a job
-- whose process died is taken again when the lease runs out.
CREATE TABLE admin_message_jobs (
  id            bigint PRIMARY KEY,
  -- shred | delete_all
  kind          text NOT NULL,
  -- The operator (a user's or an API key's id), as the admin audit log names them.
  admin_id      text NOT NULL,
  -- Whose messages: only that author's are deleted, whatever an entry names.
  user_id       bigint NOT NULL,
  -- in_progress | completed | failed (MessageShredStatusResponse).
  status        text NOT NULL DEFAULT 'in_progress',
  -- Entries asked for; those left to look at after dropping repeats and unknown
  -- channels; deleted; skipped (repeats, unknown channels, not the author's or gone,
  -- under a legal hold).
  requested     integer NOT NULL,
  total         integer NOT NULL,
  processed     integer NOT NULL DEFAULT 0,
  skipped       integer NOT NULL DEFAULT 0,
  started_at    timestamptz NOT NULL DEFAULT now(),
  completed_at  timestamptz,
  failed_at     timestamptz,
  error         text,
  claimed_until timestamptz
);

-- The sweep asks for unfinished jobs only.
CREATE INDEX admin_message_jobs_open ON admin_message_jobs (id) WHERE status = 'in_progress';

-- What a job has left to do: a row per message, removed once its batch is through.
-- `owner_id` is the actor the message goes through: its guild, or for a DM channel
-- the channel itself (`dm`). A batch is some rows of one owner, so one actor write
-- carries it; the key's order walks owner after owner.
CREATE TABLE admin_message_job_entries (
  job_id      bigint NOT NULL REFERENCES admin_message_jobs (id) ON DELETE CASCADE,
  owner_id    bigint NOT NULL,
  dm          boolean NOT NULL,
  channel_id  bigint NOT NULL,
  message_id  bigint NOT NULL,
  PRIMARY KEY (job_id, owner_id, channel_id, message_id)
);
