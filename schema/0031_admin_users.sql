-- What operators hold over accounts (issue 19), beside what 0001/0002 gave users.
--   system: an account the instance itself speaks as (never logs in).
--   suspicious_activity_flags: SuspiciousActivityFlags (part B); a set bit is a
--     verification the user must pass before the account works again.
--   banned_at / temp_banned_until: an operator's ban; with no end it is permanent.
--     Kept apart from disabled_at, which the user sets and a login clears.
--   deletion_reason_code / deletion_public_reason: why an operator scheduled the
--     deletion (deletion_scheduled_at, 0002); both null for a user's own.
ALTER TABLE users
  ADD COLUMN system                     boolean NOT NULL DEFAULT false,
  ADD COLUMN suspicious_activity_flags  integer NOT NULL DEFAULT 0,
  ADD COLUMN banned_at                  timestamptz,
  ADD COLUMN temp_banned_until          timestamptz,
  ADD COLUMN deletion_reason_code       integer,
  ADD COLUMN deletion_public_reason     text;

-- The admin search walks users by name and email; the tag index covers exact tags.
CREATE INDEX users_username_lower ON users (lower(username) text_pattern_ops);
