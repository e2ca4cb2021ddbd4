-- Temporary membership (issue 4, invites): a member who joined through a
-- temporary invite is removed when their last gateway session closes, unless a
-- role was given to them meanwhile (which clears the flag for good).
ALTER TABLE guild_members ADD COLUMN temporary boolean NOT NULL DEFAULT false;

-- The disconnect hook asks which guilds hold the user temporarily; few rows qualify.
CREATE INDEX guild_members_temporary_by_user ON guild_members (user_id) WHERE temporary;
