import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { GuildResponse } from "../../../src/model/Guilds.ts"
import { type Forbidden, invalidField, missingPermissions, unknown } from "../../../src/model/Errors.ts"
import { requireMember, requirePermission } from "../Access.ts"
import { read, write } from "../Definitions.ts"
import type { GuildState } from "../State.ts"
import { permissionsAt } from "../members/Timeouts.ts"
import { recordChange } from "./Settings.ts"

/**
 * Guild-level operations beyond its settings (Settings.ts): ownership,
 * deletion, and the access checks the HTTP side asks for.
 */

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
      return recordChange(state, { owner_id: newOwnerId }, context)
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

/** The viewer's guild permissions at `now`, when they hold `wanted`; else 403 (MISSING_ACCESS for strangers). */
export const viewerPermissions = read(
  "ViewerPermissions",
  { wanted: Schema.String, now: Schema.Number },
  Schema.String,
  (state, { wanted, now }, viewerId) =>
    Effect.as(requirePermission(state, viewerId, BigInt(wanted), now), permissionsAt(state, viewerId, now).toString())
)

export const guildWrites = [transferOwnership, deleteGuild] as const
export const guildReads = [ownerOnly, viewerPermissions] as const
