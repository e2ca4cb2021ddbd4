-- Direct messages and group DMs (issue 5). A DM channel is a row of `channels` with no
-- guild (type 1 DM, type 3 group DM); its messages live in `messages` with guild_id null.
--
-- dm_channels: what a DM channel has beyond `channels`. A one-to-one DM names its pair
-- (lower id first) so that there is one DM per pair of users: the unique key is what
-- "reuse the existing DM" looks up. A group DM has an owner, an icon and nicknames.
CREATE TABLE dm_channels (
  channel_id       bigint PRIMARY KEY REFERENCES channels (id) ON DELETE CASCADE,
  pair_low         bigint,
  pair_high        bigint,
  owner_id         bigint,
  icon             text,
  nicks            jsonb NOT NULL DEFAULT '{}',
  last_message_id  bigint,
  UNIQUE (pair_low, pair_high)
);

-- Who is in each DM channel. `is_open`: whether the channel is in the user's list (a
-- closed DM opens again with the next message). Listed by user, so an index leads with it.
CREATE TABLE dm_recipients (
  channel_id  bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  is_open     boolean NOT NULL DEFAULT true,
  added_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (channel_id, user_id)
);
CREATE INDEX dm_recipients_user ON dm_recipients (user_id, channel_id);

-- A call in a DM channel while it lasts: who is being rung. Kept here so that a DM
-- channel's actor that restarts (another runner, an idle actor passivated) still knows it.
CREATE TABLE dm_calls (
  channel_id  bigint PRIMARY KEY REFERENCES channels (id) ON DELETE CASCADE,
  ringing     bigint[] NOT NULL DEFAULT '{}',
  region      text,
  started_at  timestamptz NOT NULL DEFAULT now()
);
