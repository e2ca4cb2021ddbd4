-- Messages (issue 5) and the read states of their channels.
--
-- The access pattern decides the layout: a channel's messages are read newest first, a
-- page at a time, with a snowflake as the cursor (`before`, `after`, `around`); a message
-- is found by channel and id; writes append at the newest end of one channel.
--
-- Primary key (channel_id, id): one B-tree serves every read. A page is one index range
-- scan of exactly `limit` entries whatever the channel's size:
--   newest first:  WHERE channel_id = $1 AND id < $before ORDER BY id DESC LIMIT $n
--                  (a backward scan: a B-tree reads either way, so `id DESC` in the key
--                  would buy nothing; Postgres does not accept DESC in a primary key)
--   after:         WHERE channel_id = $1 AND id > $after ORDER BY id LIMIT $n
-- Ids grow within a channel (the guild actor gives each new message an id above the
-- channel's last one), so inserts land at the right edge of their channel's range and
-- never split pages in the middle of the tree.
--
-- No other index: each one is paid on every insert, the hot write. Author-scoped sweeps
-- (ban with delete_message_days, self-service deletion, search) add theirs with their
-- own migrations.
--
-- guild_id is null for DM channels, which keep their messages here too; it is stored
-- (not only reachable through channels) so guild-wide work needs no join.
-- Users are referenced by id (author, mentions) and shown as they are when read; stickers,
-- embeds and forwarded snapshots are copies, as sent.
CREATE TABLE messages (
  channel_id            bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  id                    bigint NOT NULL,
  guild_id              bigint,
  author_id             bigint NOT NULL,
  type                  integer NOT NULL DEFAULT 0,
  flags                 integer NOT NULL DEFAULT 0,
  content               text NOT NULL DEFAULT '',
  tts                   boolean NOT NULL DEFAULT false,
  mention_everyone      boolean NOT NULL DEFAULT false,
  mention_user_ids      bigint[] NOT NULL DEFAULT '{}',
  mention_role_ids      bigint[] NOT NULL DEFAULT '{}',
  embeds                jsonb NOT NULL DEFAULT '[]',
  attachments           jsonb NOT NULL DEFAULT '[]',
  stickers              jsonb NOT NULL DEFAULT '[]',
  -- message_reference: a reply (type 0) or a forward (type 1) of another message.
  reference_channel_id  bigint,
  reference_message_id  bigint,
  reference_guild_id    bigint,
  reference_type        integer,
  snapshots             jsonb,
  nonce                 text,
  pinned                boolean NOT NULL DEFAULT false,
  created_at            timestamptz NOT NULL,
  edited_at             timestamptz,
  PRIMARY KEY (channel_id, id)
);

-- How far each user has read each channel (POST .../messages/{id}/ack). Looked up by
-- user (a session's read states), so the user leads the key.
CREATE TABLE read_states (
  user_id          bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  channel_id       bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  last_message_id  bigint NOT NULL,
  mention_count    integer NOT NULL DEFAULT 0,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, channel_id)
);
