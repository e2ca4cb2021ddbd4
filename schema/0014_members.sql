-- Guild member profiles, timeouts and how members joined (issue 4, members).
ALTER TABLE guild_members
  ADD COLUMN communication_disabled_until timestamptz,
  ADD COLUMN avatar text,
  ADD COLUMN banner text,
  ADD COLUMN bio text,
  ADD COLUMN pronouns text,
  ADD COLUMN accent_color integer,
  ADD COLUMN profile_flags integer,
  ADD COLUMN join_source_type integer,
  ADD COLUMN source_invite_code text,
  ADD COLUMN inviter_id bigint;
