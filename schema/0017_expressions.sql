-- Guild emojis and stickers. Their images live in the media store, named by the
-- SHA-256 of their bytes (media_hash); the rows only point at them.
CREATE TABLE guild_emojis (
  id          bigint PRIMARY KEY,
  guild_id    bigint NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
  name        text NOT NULL,
  animated    boolean NOT NULL DEFAULT false,
  media_hash  text NOT NULL,
  creator_id  bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX guild_emojis_guild ON guild_emojis (guild_id);

CREATE TABLE guild_stickers (
  id           bigint PRIMARY KEY,
  guild_id     bigint NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
  name         text NOT NULL,
  description  text NOT NULL DEFAULT '',
  tags         text[] NOT NULL DEFAULT '{}',
  animated     boolean NOT NULL DEFAULT false,
  media_hash   text NOT NULL,
  creator_id   bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX guild_stickers_guild ON guild_stickers (guild_id);

-- Packs: a user's own collections of emojis or stickers, installed by users
-- rather than owned by a guild.
CREATE TABLE packs (
  id           bigint PRIMARY KEY,
  type         text NOT NULL CHECK (type IN ('emoji', 'sticker')),
  name         text NOT NULL,
  description  text,
  creator_id   bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX packs_creator ON packs (creator_id);

CREATE TABLE pack_installations (
  pack_id       bigint NOT NULL REFERENCES packs (id) ON DELETE CASCADE,
  user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  installed_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, pack_id)
);

-- A pack's items: emojis (description and tags unused) or stickers, by the pack's type.
CREATE TABLE pack_items (
  id           bigint PRIMARY KEY,
  pack_id      bigint NOT NULL REFERENCES packs (id) ON DELETE CASCADE,
  name         text NOT NULL,
  description  text NOT NULL DEFAULT '',
  tags         text[] NOT NULL DEFAULT '{}',
  animated     boolean NOT NULL DEFAULT false,
  media_hash   text NOT NULL,
  creator_id   bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pack_items_pack ON pack_items (pack_id, id);

CREATE TABLE pack_invites (
  code        text PRIMARY KEY,
  pack_id     bigint NOT NULL REFERENCES packs (id) ON DELETE CASCADE,
  inviter_id  bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  max_uses    integer NOT NULL DEFAULT 0,
  uses        integer NOT NULL DEFAULT 0,
  temporary   boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz
);
CREATE INDEX pack_invites_pack ON pack_invites (pack_id);
