-- A bot's managed role (issue 17): made when the bot joins with permissions, removed when it
-- leaves. Null for every other role. No one assigns, removes or deletes it by hand.
ALTER TABLE guild_roles ADD COLUMN bot_id bigint;
