-- Channels of a guild (issue 4): their permission overwrites ({id, type, allow, deny} with
-- the bit sets as decimal strings, in the order they were set) and the fields of the
-- voice, link and slow-mode variants.
ALTER TABLE channels
  ADD COLUMN permission_overwrites jsonb NOT NULL DEFAULT '[]',
  ADD COLUMN url                   text,
  ADD COLUMN bitrate               integer,
  ADD COLUMN user_limit            integer,
  ADD COLUMN rate_limit_per_user   integer NOT NULL DEFAULT 0,
  ADD COLUMN rtc_region            text;
CREATE INDEX channels_parent ON channels (parent_id) WHERE parent_id IS NOT NULL;
