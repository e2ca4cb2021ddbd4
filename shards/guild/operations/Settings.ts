import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { GuildResponse, GuildUpdateRequest } from "../../../src/model/Guilds.ts"
import { invalidField } from "../../../src/model/Errors.ts"
import { changesOf, requirePermission } from "../Access.ts"
import { type Decision, read, unchanged, write, type WriteContext } from "../Definitions.ts"
import { type GuildRecordChange, updateRecord } from "../GuildRecord.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import { applyPatch, checkPatch, type GuildState, type SettingsPatch } from "../State.ts"
import { guildViewOfMember, viewFor } from "../Views.ts"

/**
 * The guild's settings: the PATCH, the feature toggles and the vanity code.
 * Every change of the guild record (ownership included, Guild.ts) decides
 * through `recordChange`, so each is persisted, audited and dispatched alike.
 */

/** Audit log action types (part C, AuditLogActionType). */
const GUILD_UPDATE = 1

/**
 * A change of the guild record decided: the record changed in memory, its
 * changed columns written (GuildRecord.ts), the GUILD_UPDATE audit entry with
 * what changed, the event; answered with `replyOf` the next state.
 */
export const changeRecord = <Reply>(
  state: GuildState,
  change: GuildRecordChange,
  context: WriteContext,
  replyOf: (next: GuildState) => Reply
) => {
  const next = applyPatch(state, change)
  return {
    next,
    reply: replyOf(next),
    persist: updateRecord(context.guildId, change),
    audit: [{ actionType: GUILD_UPDATE, targetId: context.guildId, changes: changesOf(state.guild, change) }],
    events: [{ type: "GUILD_UPDATE", data: viewFor(next, next.guild.owner_id) }]
  } satisfies Decision<Reply>
}

/** A change of the guild record, answered with the guild as the actor now sees it. */
export const recordChange = (state: GuildState, change: GuildRecordChange, context: WriteContext): Decision<GuildResponse> =>
  changeRecord(state, change, context, (next) => guildViewOfMember(next, context.actorId))

/** The proof fields of a PATCH guard ownership-level changes; they are not settings. */
type ProofField = "password" | "mfa_method" | "mfa_code" | "webauthn_response" | "webauthn_challenge"

/**
 * Every setting the PATCH accepts is a field of the record: a request field
 * without a column of its own is a compile error here, not a setting lost on restart.
 */
type NoneMissing<Missing extends never> = Missing
type RequestedSettingsWithoutColumn = NoneMissing<Exclude<keyof Omit<GuildUpdateRequest, ProofField>, keyof SettingsPatch>>

/** PATCH /guilds/{id}: MANAGE_GUILD. */
export const updateGuild = write("UpdateGuild", { patch: GuildUpdateRequest }, GuildResponse, (state, { patch }, context) =>
  Effect.gen(function*() {
    yield* requirePermission(state, context.actorId, Permission.MANAGE_GUILD, context.now)
    const { password: _p, mfa_method: _m, mfa_code: _c, webauthn_response: _r, webauthn_challenge: _w, ...settings } = patch
    const rejected = checkPatch(state, settings, context.now)
    if (rejected) return yield* invalidField(rejected.path, rejected.code, rejected.message)
    return recordChange(state, settings, context)
  }))

/** Features an owner may switch on and off with EnabledToggleRequest. */
export const ToggledFeature = Schema.Literals(["DETACHED_BANNER", "TEXT_CHANNEL_FLEXIBLE_NAMES"])
export type ToggledFeature = typeof ToggledFeature.Type

/** PATCH /guilds/{id}/detached-banner and /text-channel-flexible-names: MANAGE_GUILD. */
export const toggleFeature = write(
  "ToggleGuildFeature",
  { feature: ToggledFeature, enabled: Schema.Boolean },
  GuildResponse,
  (state, { feature, enabled }, context) =>
    Effect.gen(function*() {
      yield* requirePermission(state, context.actorId, Permission.MANAGE_GUILD, context.now)
      const has = state.guild.features.includes(feature)
      if (has === enabled) return unchanged(state, guildViewOfMember(state, context.actorId))
      const features = enabled ? [...state.guild.features, feature] : state.guild.features.filter((f) => f !== feature)
      return recordChange(state, { features }, context)
    })
)

/** GET /guilds/{id}/vanity-url: the code, for MANAGE_GUILD (its uses are counted in Postgres). */
export const vanityCode = read("VanityCode", { now: Schema.Number }, Schema.NullOr(Schema.String), (state, { now }, viewerId) =>
  Effect.as(requirePermission(state, viewerId, Permission.MANAGE_GUILD, now), state.guild.vanity_url_code))

/** A new vanity code starts at zero uses. */
export const resetVanityUses = (guildId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.asVoid(sql`INSERT INTO guild_vanity_url_uses (guild_id, uses) VALUES (${guildId}, 0)
        ON CONFLICT (guild_id) DO UPDATE SET uses = 0`))

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
      const change = changeRecord(state, { vanity_url_code: code }, context, () => code)
      return { ...change, persist: Effect.andThen(change.persist, resetVanityUses(context.guildId)) }
    })
)

export const settingsWrites = [updateGuild, toggleFeature, setVanityCode] as const
export const settingsReads = [vanityCode] as const
