import { Schema } from "effect"

/**
 * Voice regions a channel may pin (`rtc_region`). Operators configure regions
 * through /admin/voice/regions (src/platform/VoiceCatalog.ts reads them); a
 * deployment with none configured offers these four, as it always has, so
 * channels that pinned one of them keep working.
 */
export const RTC_REGIONS = [
  { id: "us-east", name: "US East", emoji: "🇺🇸" },
  { id: "us-west", name: "US West", emoji: "🇺🇸" },
  { id: "europe", name: "Europe", emoji: "🇪🇺" },
  { id: "asia", name: "Asia", emoji: "🌏" }
] as const

/** The guild feature that opens VIP-only regions and servers. */
export const VIP_VOICE = "VIP_VOICE"

/** Who a region or server is for (the admin routes' access fields). */
export interface AccessRules {
  readonly vip_only: boolean
  readonly required_guild_features: ReadonlyArray<string>
  readonly allowed_guild_ids: ReadonlyArray<string>
  readonly allowed_user_ids: ReadonlyArray<string>
}

/** Who asks: a guild (null in a DM call) with its features, and the user. */
export interface VoiceCaller {
  readonly guildId: string | null
  readonly guildFeatures: ReadonlyArray<string>
  readonly userId: string
}

/**
 * Whether `caller` may use what `rules` guard. Allow lists, when given, are a
 * closed door with named keys: only the guilds and users listed pass them.
 * VIP-only asks the guild for VIP_VOICE, and every required feature must be
 * the guild's; a DM call has no guild, so it passes neither.
 */
export const mayUse = (rules: AccessRules, caller: VoiceCaller): boolean => {
  const listed = rules.allowed_guild_ids.length > 0 || rules.allowed_user_ids.length > 0
  if (listed) {
    const named = (caller.guildId !== null && rules.allowed_guild_ids.includes(caller.guildId)) ||
      rules.allowed_user_ids.includes(caller.userId)
    if (!named) return false
  }
  if (rules.vip_only && !caller.guildFeatures.includes(VIP_VOICE)) return false
  return rules.required_guild_features.every((feature) => caller.guildFeatures.includes(feature))
}

/** A configured region as the access checks see it (and as an actor message carries it). */
export const RegionRule = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  emoji: Schema.String,
  is_default: Schema.Boolean,
  vip_only: Schema.Boolean,
  required_guild_features: Schema.Array(Schema.String),
  allowed_guild_ids: Schema.Array(Schema.String),
  allowed_user_ids: Schema.Array(Schema.String)
})
export type RegionRule = typeof RegionRule.Type

/** Only the fields of a rule, from a fuller region (an actor message carries no more). */
export const ruleOf = (r: RegionRule): RegionRule => ({
  id: r.id,
  name: r.name,
  emoji: r.emoji,
  is_default: r.is_default,
  vip_only: r.vip_only,
  required_guild_features: r.required_guild_features,
  allowed_guild_ids: r.allowed_guild_ids,
  allowed_user_ids: r.allowed_user_ids
})

/**
 * The regions `caller` may pin (RtcRegionResponse): the configured ones they may
 * use, or the four defaults when none is configured at all.
 */
export const regionsFor = (configured: ReadonlyArray<RegionRule>, caller: VoiceCaller): ReadonlyArray<{ id: string; name: string; emoji: string }> =>
  configured.length === 0
    ? RTC_REGIONS
    : configured.filter((r) => mayUse(r, caller)).map(({ id, name, emoji }) => ({ id, name, emoji }))

/**
 * Why `caller` may not pin `regionId`: unknown (not configured, or not one of the
 * four defaults when none is), or restricted (configured, but not for them).
 */
export const pinRefusal = (
  configured: ReadonlyArray<RegionRule>,
  caller: VoiceCaller,
  regionId: string
): "INVALID_RTC_REGION" | "INVALID_OR_RESTRICTED_RTC_REGION" | undefined => {
  if (regionsFor(configured, caller).some((r) => r.id === regionId)) return undefined
  return configured.some((r) => r.id === regionId) ? "INVALID_OR_RESTRICTED_RTC_REGION" : "INVALID_RTC_REGION"
}
