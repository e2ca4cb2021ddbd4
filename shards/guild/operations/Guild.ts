import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { GuildResponse } from "../../../src/model/Guilds.ts"
import { type Forbidden, invalidField, missingPermissions, unknown } from "../../../src/model/Errors.ts"
import { requireMember, requirePermission } from "../Access.ts"
import { read, unchanged, write } from "../Definitions.ts"
import { memberView } from "../Reads.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import { type GuildState, viewFor } from "../State.ts"
import { permissionsAt } from "../members/Timeouts.ts"
import { settingsChange } from "./Settings.ts"

/**
 * Guild-level operations beyond the settings PATCH: ownership, deletion, the
 * feature toggles, the vanity code, and the access check of the audit log.
 */

/** Audit log action types (part C, AuditLogActionType). */
const GUILD_UPDATE = 1

/** Features an owner may switch on and off with EnabledToggleRequest. */
export const ToggledFeature = Schema.Literals(["DETACHED_BANNER", "TEXT_CHANNEL_FLEXIBLE_NAMES"])
export type ToggledFeature = typeof ToggledFeature.Type

const requireOwner = (state: GuildState, userId: string): Effect.Effect<void, Forbidden> =>
  Effect.flatMap(requireMember(state, userId), () =>
    state.guild.owner_id === userId ? Effect.void : Effect.fail(missingPermissions()))

/** Succeeds for the owner only (the HTTP side asks before it checks a password). */
export const ownerOnly = read("OwnerOnly", {}, Schema.Null, (state, _query, viewerId) =>
  Effect.as(requireOwner(state, viewerId), null))

/** POST /guilds/{id}/transfer-ownership: the owner hands the guild to another member. */
export const transferOwnership = write(
  "TransferOwnership",
  { newOwnerId: Schema.String },
  GuildResponse,
  (state, { newOwnerId }, context) =>
    Effect.gen(function*() {
      yield* requireOwner(state, context.actorId)
      const heir = state.members.get(newOwnerId)
      if (heir === undefined) return yield* unknown("MEMBER")
      if (newOwnerId === context.actorId) {
        return yield* invalidField("new_owner_id", "ALREADY_OWNER", "You already own this guild")
      }
      if (heir.user.bot === true) {
        return yield* invalidField("new_owner_id", "CANNOT_TRANSFER_OWNERSHIP_TO_BOT", "A bot cannot own a guild")
      }
      const next: GuildState = { ...state, guild: { ...state.guild, owner_id: newOwnerId } }
      return {
        next,
        reply: memberView(next, context.actorId),
        persist: Effect.flatMap(SqlClient.SqlClient, (sql) =>
          Effect.asVoid(sql`UPDATE guilds SET owner_id = ${newOwnerId} WHERE id = ${context.guildId}`)),
        audit: [{
          actionType: GUILD_UPDATE,
          targetId: context.guildId,
          changes: [{ key: "owner_id", old_value: state.guild.owner_id, new_value: newOwnerId }]
        }],
        events: [{ type: "GUILD_UPDATE", data: viewFor(next, newOwnerId) }]
      }
    })
)

/** What a deletion answers: the guild and who were its members (their user actors must forget it). */
const DeletedGuild = Schema.Struct({ id: Schema.String, memberIds: Schema.Array(Schema.String) })

/**
 * POST /guilds/{id}/delete: the owner removes the guild. The rows under it go
 * with it (foreign keys cascade), its audit log included, so it leaves no entry.
 */
export const deleteGuild = write("DeleteGuild", {}, DeletedGuild, (state, _command, context) =>
  Effect.gen(function*() {
    yield* requireOwner(state, context.actorId)
    return {
      next: state,
      reply: { id: context.guildId, memberIds: [...state.members.keys()] },
      persist: Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.asVoid(sql`DELETE FROM guilds WHERE id = ${context.guildId}`)),
      audit: [],
      events: [{ type: "GUILD_DELETE", data: { id: context.guildId } }],
      dropsGuild: true
    }
  }))

/** PATCH /guilds/{id}/detached-banner and /text-channel-flexible-names: MANAGE_GUILD. */
export const toggleFeature = write(
  "ToggleGuildFeature",
  { feature: ToggledFeature, enabled: Schema.Boolean },
  GuildResponse,
  (state, { feature, enabled }, context) =>
    Effect.gen(function*() {
      yield* requirePermission(state, context.actorId, Permission.MANAGE_GUILD, context.now)
      const has = state.guild.features.includes(feature)
      if (has === enabled) return unchanged(state, memberView(state, context.actorId))
      const patch = {
        features: enabled ? [...state.guild.features, feature] : state.guild.features.filter((f) => f !== feature)
      }
      return settingsChange(state, patch, context)
    })
)

/** GET /guilds/{id}/vanity-url: the code, for MANAGE_GUILD (its uses are counted in Postgres). */
export const vanityCode = read("VanityCode", { now: Schema.Number }, Schema.NullOr(Schema.String), (state, { now }, viewerId) =>
  Effect.as(requirePermission(state, viewerId, Permission.MANAGE_GUILD, now), state.guild.vanity_url_code))

/**
 * PATCH /guilds/{id}/vanity-url: MANAGE_GUILD. Postgres keeps codes unique
 * across guilds (the HTTP side refuses a taken one first); a new code starts at
 * zero uses.
 */
export const setVanityCode = write(
  "SetVanityCode",
  { code: Schema.NullOr(Schema.String) },
  Schema.NullOr(Schema.String),
  (state, { code }, context) =>
    Effect.gen(function*() {
      yield* requirePermission(state, context.actorId, Permission.MANAGE_GUILD, context.now)
      if (state.guild.vanity_url_code === code) return unchanged(state, code)
      const next: GuildState = { ...state, guild: { ...state.guild, vanity_url_code: code } }
      return {
        next,
        reply: code,
        persist: Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* sql`UPDATE guilds SET vanity_url_code = ${code} WHERE id = ${context.guildId}`
          yield* sql`INSERT INTO guild_vanity_url_uses (guild_id, uses) VALUES (${context.guildId}, 0)
                     ON CONFLICT (guild_id) DO UPDATE SET uses = 0`
        }),
        audit: [{
          actionType: GUILD_UPDATE,
          targetId: context.guildId,
          changes: [{ key: "vanity_url_code", old_value: state.guild.vanity_url_code, new_value: code }]
        }],
        events: [{ type: "GUILD_UPDATE", data: viewFor(next, next.guild.owner_id) }]
      }
    })
)

/** The viewer's guild permissions at `now`, when they hold `wanted`; else 403 (MISSING_ACCESS for strangers). */
export const viewerPermissions = read(
  "ViewerPermissions",
  { wanted: Schema.String, now: Schema.Number },
  Schema.String,
  (state, { wanted, now }, viewerId) =>
    Effect.as(requirePermission(state, viewerId, BigInt(wanted), now), permissionsAt(state, viewerId, now).toString())
)

export const guildWrites = [transferOwnership, deleteGuild, toggleFeature, setVanityCode] as const
export const guildReads = [ownerOnly, vanityCode, viewerPermissions] as const
