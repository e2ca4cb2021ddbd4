-- Guild bans and invites (issue 4, bans and invites), written by the guild actor.

-- A ban with an expires_at stops counting once it passes; the guild actor
-- deletes such rows lazily (on its next ban or join) and never loads them.
CREATE TABLE guild_bans (
  guild_id      bigint NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
  user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  moderator_id  bigint NOT NULL,
  reason        text,
  banned_at     timestamptz NOT NULL,
  expires_at    timestamptz,
  PRIMARY KEY (guild_id, user_id)
);

-- The code is unique across every guild: /invites/{code} finds its guild here.
CREATE TABLE guild_invites (
  code        text PRIMARY KEY,
  guild_id    bigint NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
  channel_id  bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  inviter_id  bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL,
  max_age     integer NOT NULL DEFAULT 86400,
  max_uses    integer NOT NULL DEFAULT 0,
  uses        integer NOT NULL DEFAULT 0,
  temporary   boolean NOT NULL DEFAULT false
);
CREATE INDEX guild_invites_guild ON guild_invites (guild_id);
CREATE INDEX guild_invites_channel ON guild_invites (channel_id);
