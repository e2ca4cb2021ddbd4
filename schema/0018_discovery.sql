-- Guild discovery: a guild's application to be listed, and its review. Operators review
-- applications (the admin side); an approved, not removed application is listed.
CREATE TABLE guild_discovery (
  guild_id          bigint PRIMARY KEY REFERENCES guilds (id) ON DELETE CASCADE,
  status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'removed')),
  description       text NOT NULL,
  category_type     integer NOT NULL,
  primary_language  text,
  custom_tags       text[] NOT NULL DEFAULT '{}',
  applied_at        timestamptz NOT NULL DEFAULT now(),
  reviewed_at       timestamptz,
  review_reason     text,
  removed_at        timestamptz,
  removal_reason    text
);
-- Search is full-text over the guild's name (joined in at query time, as it changes), the
-- description and the tags, among listed guilds only: the partial index narrows to those.
CREATE INDEX guild_discovery_listed ON guild_discovery (category_type) WHERE status = 'approved';
