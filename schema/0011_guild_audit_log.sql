-- Every change inside a guild leaves an entry (GET /guilds/{id}/audit-logs), written by the
-- guild actor in the transaction of the change itself.
CREATE TABLE guild_audit_log_entries (
  id           bigint PRIMARY KEY,
  guild_id     bigint NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
  user_id      bigint,
  action_type  integer NOT NULL,
  target_id    text,
  reason       text,
  changes      jsonb NOT NULL DEFAULT '[]',
  options      jsonb,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX guild_audit_log_entries_guild ON guild_audit_log_entries (guild_id, id DESC);
