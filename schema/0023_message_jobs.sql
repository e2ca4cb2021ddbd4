-- Durable message jobs (issue 5): scheduled messages and self-service deletion of one's
-- messages, both carried out by a sweep that every API process runs; and the index the
-- author-scoped deletions need.

-- A message to send later. The row is the job: a sweep claims due rows (`claimed_until`
-- is a lease, so a process that dies mid-send leaves the row to another after it runs
-- out) and sends each through the guild actor with `send_operation_id`. That id is minted
-- at the first claim and kept, so a send retried after a crash between the actor's commit
-- and the row's update replays the same operation, which the actor answers from its
-- record instead of sending twice. It is not the row's id: the message takes its id from
-- the operation, and a message should carry the time it was sent, not when it was
-- scheduled (bulk deletion's 14 days go by the id).
CREATE TABLE scheduled_messages (
  id                 bigint PRIMARY KEY,
  user_id            bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  channel_id         bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  guild_id           bigint NOT NULL,
  -- The create request (ScheduledMessageRequestSchema without the time fields), as validated.
  payload            jsonb NOT NULL,
  scheduled_at       timestamptz NOT NULL,
  scheduled_local_at text NOT NULL,
  timezone           text NOT NULL,
  -- scheduled: waiting or being sent; sent; invalid: refused when it was due (status_reason says why).
  status             text NOT NULL DEFAULT 'scheduled',
  status_reason      text,
  created_at         timestamptz NOT NULL DEFAULT now(),
  invalidated_at     timestamptz,
  claimed_until      timestamptz,
  send_operation_id  bigint,
  message_id         bigint
);

-- The sweep asks for due rows still to send, oldest first: a partial index holds only
-- those, so it stays small however many sent rows accumulate.
CREATE INDEX scheduled_messages_due ON scheduled_messages (scheduled_at) WHERE status = 'scheduled';
-- GET /users/@me/scheduled-messages.
CREATE INDEX scheduled_messages_user ON scheduled_messages (user_id, id);

-- POST /users/@me/messages/delete: one job per user. Messages with an id up to
-- `cutoff_id` (the request's time) go; what a job has done is simply what is no longer
-- in `messages`, so a job resumed after a restart (its lease ran out) carries on from
-- there with no cursor of its own.
CREATE TABLE message_deletion_jobs (
  user_id        bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  cutoff_id      bigint NOT NULL,
  scheduled_at   timestamptz NOT NULL,
  channel_count  integer NOT NULL,
  message_count  integer NOT NULL,
  claimed_until  timestamptz
);

CREATE INDEX message_deletion_jobs_due ON message_deletion_jobs (scheduled_at);

-- The author-scoped sweeps: a ban's delete_message_days (one author in one guild, the
-- last N days: an equality on both and a range of ids) and self-service deletion (one
-- author, guild messages only, a batch at a time). 0019 left this out on purpose, as
-- every index is paid on each insert; one index serves both sweeps, which would
-- otherwise scan every message of the guild or of the whole table. guild_id before id:
-- a ban reads one guild's range, the self-deletion goes guild by guild.
CREATE INDEX messages_author ON messages (author_id, guild_id, id);
