-- The account change log (issue 19): every change of an identity field of an
-- account (its tag, display name, email, phone), whoever made it, as operators
-- read it (POST /admin/users/change-log). The user's actor writes it in the same
-- transaction as the change (shards/user/ChangeLog.ts); flows that change the row
-- outside the actor are logged when they ask the actor to read the account again.
--   event_id: ascending in the order of the changes; the log is read newest first
--     and paged by it.
--   actor_id: who changed it: the user, an operator's account or API key, a job.
CREATE TABLE user_change_log (
  event_id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  field      text NOT NULL,
  old_value  text,
  new_value  text,
  actor_id   text,
  event_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX user_change_log_user ON user_change_log (user_id, event_id DESC);

-- The admin user search matches name and email prefixes, case-insensitively
-- (0031 covers the username).
CREATE INDEX users_global_name_lower ON users (lower(global_name) text_pattern_ops) WHERE global_name IS NOT NULL;
CREATE INDEX users_email_lower_prefix ON users (lower(email) text_pattern_ops) WHERE email IS NOT NULL;
