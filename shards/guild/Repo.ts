import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { ChannelResponse, GuildMemberResponse, GuildRoleResponse } from "../../src/guilds/Schemas.ts"
import { isoTimestamp, isoTimestampOrNull } from "../../src/platform/Timestamps.ts"
import { toUserPartial, type UserRow } from "../../src/users/Repo.ts"
import type { GuildSettings, GuildState, SettingsPatch } from "./State.ts"

interface GuildRow extends Omit<GuildSettings, "message_history_cutoff"> {
  readonly message_history_cutoff: Date | string | null
  readonly created_at: Date | string
}

/** Columns a settings patch may write: the keys of GuildSettings that are columns. */
const PATCHABLE = new Set([
  "name", "icon", "banner", "splash", "embed_splash", "splash_card_alignment", "system_channel_id",
  "system_channel_flags", "rules_channel_id", "afk_channel_id", "afk_timeout", "features", "verification_level",
  "mfa_level", "nsfw_level", "nsfw", "content_warning_level", "content_warning_text", "explicit_content_filter",
  "default_message_notifications", "disabled_operations", "message_history_cutoff"
])

/** Postgres side of the guild actor: load everything, write each change with its operation record. */
export class GuildRepo extends Context.Service<GuildRepo, {
  readonly load: (guildId: string) => Effect.Effect<GuildState | undefined>
  readonly exists: (guildId: string) => Effect.Effect<boolean>
  /** The stored result of an operation that already committed. */
  readonly operationResult: (operationId: string) => Effect.Effect<unknown>
  readonly insertGuild: (state: GuildState, operationId: string, result: unknown) => Effect.Effect<void>
  readonly updateGuild: (guildId: string, patch: SettingsPatch, operationId: string, result: unknown) => Effect.Effect<void>
}>()("guildhall/GuildRepo") {
  static readonly layer = Layer.effect(
    GuildRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const recordOperation = (operationId: string, entityId: string, result: unknown) =>
        sql`INSERT INTO actor_operations (operation_id, entity_id, result)
            VALUES (${operationId}, ${entityId}, ${JSON.stringify(result)}::jsonb)`

      const load = (guildId: string) =>
        Effect.gen(function*() {
          const [guild] = yield* sql<GuildRow>`SELECT * FROM guilds WHERE id = ${guildId}`
          if (guild === undefined) return undefined
          const roles = yield* sql<GuildRoleResponse>`
            SELECT id, name, color, position, permissions::text AS permissions, hoist, mentionable
            FROM guild_roles WHERE guild_id = ${guildId}`
          const channels = yield* sql<ChannelResponse & { readonly created_at?: unknown }>`
            SELECT id, guild_id, name, topic, type, position, parent_id, nsfw FROM channels WHERE guild_id = ${guildId}`
          const members = yield* sql<UserRow & { member_nick: string | null; member_roles: ReadonlyArray<string>; joined_at: Date | string; mute: boolean; deaf: boolean }>`
            SELECT u.*, m.nick AS member_nick, m.roles::text[] AS member_roles, m.joined_at, m.mute, m.deaf
            FROM guild_members m JOIN users u ON u.id = m.user_id WHERE m.guild_id = ${guildId}`
          const { created_at, ...settings } = guild
          const state: GuildState = {
            guild: { ...settings, message_history_cutoff: isoTimestampOrNull(guild.message_history_cutoff) },
            createdAt: isoTimestamp(created_at),
            roles: new Map(roles.map((r) => [r.id, r])),
            channels: new Map(channels.map((c) => [c.id, { ...c, permission_overwrites: [] }])),
            members: new Map(members.map((m): [string, GuildMemberResponse] => [m.id, {
              user: toUserPartial(m),
              nick: m.member_nick,
              roles: m.member_roles,
              joined_at: isoTimestamp(m.joined_at),
              mute: m.mute,
              deaf: m.deaf
            }]))
          }
          return state
        }).pipe(Effect.orDie)

      const insertGuild = (state: GuildState, operationId: string, result: unknown) =>
        sql.withTransaction(Effect.gen(function*() {
          const g = state.guild
          yield* sql`INSERT INTO guilds (id, name, icon, owner_id, system_channel_id, created_at)
                     VALUES (${g.id}, ${g.name}, ${g.icon}, ${g.owner_id}, ${g.system_channel_id}, ${state.createdAt})`
          for (const role of state.roles.values()) {
            yield* sql`INSERT INTO guild_roles (id, guild_id, name, permissions, position, color, hoist, mentionable)
                       VALUES (${role.id}, ${g.id}, ${role.name}, ${role.permissions}, ${role.position}, ${role.color},
                               ${role.hoist}, ${role.mentionable})`
          }
          for (const channel of state.channels.values()) {
            yield* sql`INSERT INTO channels (id, guild_id, type, name, topic, position, parent_id, nsfw)
                       VALUES (${channel.id}, ${g.id}, ${channel.type}, ${channel.name ?? null}, ${channel.topic ?? null},
                               ${channel.position ?? 0}, ${channel.parent_id ?? null}, ${channel.nsfw ?? false})`
          }
          for (const member of state.members.values()) {
            yield* sql`INSERT INTO guild_members (guild_id, user_id, nick, joined_at)
                       VALUES (${g.id}, ${member.user.id}, ${member.nick ?? null}, ${member.joined_at})`
          }
          yield* recordOperation(operationId, g.id, result)
        })).pipe(Effect.orDie)

      const updateGuild = (guildId: string, patch: SettingsPatch, operationId: string, result: unknown) =>
        sql.withTransaction(Effect.gen(function*() {
          const columns = Object.fromEntries(Object.entries(patch).filter(([key]) => PATCHABLE.has(key)))
          if (Object.keys(columns).length > 0) {
            yield* sql`UPDATE guilds SET ${sql.update(columns)} WHERE id = ${guildId}`
          }
          yield* recordOperation(operationId, guildId, result)
        })).pipe(Effect.orDie)

      return GuildRepo.of({
        load,
        exists: (guildId) =>
          sql`SELECT 1 FROM guilds WHERE id = ${guildId}`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),
        operationResult: (operationId) =>
          sql<{ result: unknown }>`SELECT result FROM actor_operations WHERE operation_id = ${operationId}`.pipe(
            Effect.map((rows) => rows[0]?.result),
            Effect.orDie
          ),
        insertGuild,
        updateGuild
      })
    })
  )
}
