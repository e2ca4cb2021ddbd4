import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { GuildRoleResponse } from "../../../src/model/Guilds.ts"

/**
 * A role as the guild actor keeps it: the columns of `guild_roles` it loads,
 * each with the schema that decodes it from the row. What clients see of a
 * role is `roleView` of it.
 */
export const GuildRole = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  color: Schema.Int,
  position: Schema.Int,
  /** The permission bits as decimal text (the column is a bigint, selected as text). */
  permissions: Schema.String,
  hoist: Schema.Boolean,
  mentionable: Schema.Boolean,
  hoist_position: Schema.optional(Schema.NullOr(Schema.Int)),
  unicode_emoji: Schema.optional(Schema.NullOr(Schema.String)),
  /** The bot whose managed role this is (it came with the bot and leaves with it); null or absent for any other. */
  bot_id: Schema.optional(Schema.NullOr(Schema.String))
})
export type GuildRole = typeof GuildRole.Type

const decodeRoles = Schema.decodeUnknownEffect(Schema.Array(GuildRole))

/** The guild's roles, by id. */
export const loadRoles = (guildId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`
      SELECT id, name, color, position, permissions::text AS permissions, hoist, mentionable, hoist_position, unicode_emoji,
             bot_id::text AS bot_id
      FROM guild_roles WHERE guild_id = ${guildId}`
    const roles = yield* decodeRoles(rows)
    return new Map(roles.map((role) => [role.id, role]))
  })

/** Whether the role is a bot's own: no one gives, takes or deletes it by hand. */
export const isManaged = (role: GuildRole): boolean => role.bot_id != null

/** The role as clients see it (GuildRoleResponse); a field the role does not have is left out, not undefined. */
export const roleView = (role: GuildRole): GuildRoleResponse => ({
  id: role.id,
  name: role.name,
  color: role.color,
  colors: { primary_color: role.color, secondary_color: null, tertiary_color: null },
  position: role.position,
  permissions: role.permissions,
  hoist: role.hoist,
  managed: isManaged(role),
  mentionable: role.mentionable,
  ...(role.hoist_position === undefined ? {} : { hoist_position: role.hoist_position }),
  ...(role.unicode_emoji === undefined ? {} : { unicode_emoji: role.unicode_emoji }),
  ...(role.bot_id == null ? {} : { tags: { bot_id: role.bot_id } })
})
