-- Role fields of GuildRoleResponse beyond the original columns (issue 4, roles):
-- the member-list order of hoisted roles (null: follow `position`) and a role's emoji.
ALTER TABLE guild_roles
  ADD COLUMN hoist_position integer,
  ADD COLUMN unicode_emoji text;
