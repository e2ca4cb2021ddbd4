-- Guild-level extras. guilds.vanity_url_code is already UNIQUE (0001): Postgres keeps a
-- code to one guild even when two guilds claim it at once. Its uses are counted apart
-- from the guilds row (the row is loaded whole into the guild actor's state); a new code
-- starts again at zero. DETACHED_BANNER and TEXT_CHANNEL_FLEXIBLE_NAMES are features,
-- kept in guilds.features.
CREATE TABLE guild_vanity_url_uses (
  guild_id  bigint PRIMARY KEY REFERENCES guilds (id) ON DELETE CASCADE,
  uses      integer NOT NULL DEFAULT 0 CHECK (uses >= 0)
);
