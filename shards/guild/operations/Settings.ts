import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { GuildResponse, GuildUpdateRequest } from "../../../src/model/Guilds.ts"
import { invalidField } from "../../../src/model/Errors.ts"
import { changesOf, requirePermission } from "../Access.ts"
import { type Decision, write, type WriteContext } from "../Definitions.ts"
import { memberView } from "../Reads.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import { applyPatch, checkPatch, type GuildState, type SettingsPatch, viewFor } from "../State.ts"

/** Audit log action types (part C, AuditLogActionType). */
const GUILD_UPDATE = 1

/** Columns a settings patch may write: the keys of GuildSettings that are columns. */
const PATCHABLE = new Set([
  "name", "icon", "banner", "splash", "embed_splash", "splash_card_alignment", "system_channel_id",
  "system_channel_flags", "rules_channel_id", "afk_channel_id", "afk_timeout", "features", "verification_level",
  "mfa_level", "nsfw_level", "nsfw", "content_warning_level", "content_warning_text", "explicit_content_filter",
  "default_message_notifications", "disabled_operations", "message_history_cutoff"
])

/** The guild row's columns of `patch` (other writes of guild settings persist with it too). */
const updateRow = (guildId: string, patch: SettingsPatch) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = Object.fromEntries(Object.entries(patch).filter(([key]) => PATCHABLE.has(key)))
    if (Object.keys(columns).length > 0) yield* sql`UPDATE guilds SET ${sql.update(columns)} WHERE id = ${guildId}`
  })

/**
 * The decision of applying a checked settings patch: the guild as the actor
 * sees it, the row, the GUILD_UPDATE audit entry with what changed, the event.
 */
export const settingsChange = (state: GuildState, patch: SettingsPatch, context: WriteContext): Decision<GuildResponse> => {
  const next = applyPatch(state, patch)
  return {
    next,
    reply: memberView(next, context.actorId),
    persist: updateRow(context.guildId, patch),
    audit: [{ actionType: GUILD_UPDATE, targetId: context.guildId, changes: changesOf(state.guild, patch) }],
    events: [{ type: "GUILD_UPDATE", data: viewFor(next, next.guild.owner_id) }]
  }
}

/** PATCH /guilds/{id}: MANAGE_GUILD. */
export const updateGuild = write("UpdateGuild", { patch: GuildUpdateRequest }, GuildResponse, (state, { patch }, context) =>
  Effect.gen(function*() {
    yield* requirePermission(state, context.actorId, Permission.MANAGE_GUILD, context.now)
    // The proof fields guard ownership-level changes; they are not settings.
    const { password: _p, mfa_method: _m, mfa_code: _c, webauthn_response: _r, webauthn_challenge: _w, ...settings } = patch
    const rejected = checkPatch(state, settings, context.now)
    if (rejected) return yield* invalidField(rejected.path, rejected.code, rejected.message)
    return settingsChange(state, settings, context)
  }))

export const settingsWrites = [updateGuild] as const
export const settingsReads = [] as const
