import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { GuildRole } from "../roles/GuildRole.ts"

/** The SQL of role changes, run inside the guild actor's transaction. */

export const insertRole = (guildId: string, role: GuildRole) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO guild_roles (id, guild_id, name, permissions, position, color, hoist, mentionable, hoist_position, unicode_emoji, bot_id)
        VALUES (${role.id}, ${guildId}, ${role.name}, ${role.permissions}, ${role.position}, ${role.color}, ${role.hoist},
                ${role.mentionable}, ${role.hoist_position ?? null}, ${role.unicode_emoji ?? null}, ${role.bot_id ?? null})`).pipe(Effect.asVoid)

export const updateRoles = (roles: ReadonlyArray<GuildRole>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach(roles, (role) =>
      sql`UPDATE guild_roles SET name = ${role.name}, permissions = ${role.permissions}, position = ${role.position},
            color = ${role.color}, hoist = ${role.hoist}, mentionable = ${role.mentionable},
            hoist_position = ${role.hoist_position ?? null}, unicode_emoji = ${role.unicode_emoji ?? null}
          WHERE id = ${role.id}`, { discard: true }))

/** Deletes the role and takes it from every member who had it. */
export const deleteRole = (guildId: string, roleId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.andThen(
      sql`UPDATE guild_members SET roles = array_remove(roles, ${roleId}::bigint)
          WHERE guild_id = ${guildId} AND ${roleId}::bigint = ANY(roles)`,
      sql`DELETE FROM guild_roles WHERE id = ${roleId} AND guild_id = ${guildId}`
    )).pipe(Effect.asVoid)

/** Sets the member's roles; one given ends a temporary membership for good (schema 0025). */
export const setMemberRoles = (guildId: string, userId: string, roles: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE guild_members SET roles = ${`{${roles.join(",")}}`}::bigint[], temporary = temporary AND ${roles.length === 0}
        WHERE guild_id = ${guildId} AND user_id = ${userId}`).pipe(Effect.asVoid)
