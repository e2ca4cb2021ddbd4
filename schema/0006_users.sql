-- The user's own account (issue 3): the profile fields PATCH /users/@me sets
-- beyond those of 0001_init.sql, the client settings, and private notes.

ALTER TABLE users
  -- PremiumFlags bits a user may set (badge hidden/masked/..., enabled override);
  -- bit 0 (a premium discriminator) is never set: nobody has premium here.
  ADD COLUMN premium_flags           integer NOT NULL DEFAULT 0,
  -- MentionReplyPreferences: 0 no preference, 1 prefer mention, 2 prefer no mention.
  ADD COLUMN mention_flags           smallint NOT NULL DEFAULT 0,
  -- An IANA zone id; who may see it follows timezone_privacy_flags
  -- (ProfileFieldPrivacyFlags: 1 everyone, 2 friends, 4 mutual guilds).
  ADD COLUMN timezone                text,
  ADD COLUMN timezone_privacy_flags  integer NOT NULL DEFAULT 0;

-- What the user changed of UserSettings, as the response shows it, one object
-- per user: a key absent here is at its default (computed when read, some
-- defaults depend on the user's age). theme and locale are not in here: they
-- are users.theme and users.locale, which registration already sets.
CREATE TABLE user_settings (
  user_id     bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  data        jsonb NOT NULL DEFAULT '{}',
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- A note user_id keeps about target_id, seen by user_id only. No row: no note.
CREATE TABLE user_notes (
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  target_id   bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  note        text NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, target_id)
);
