import { Schema } from "effect"

/**
 * The instance's limits, named as the production service names them (its admin
 * console and clients read these keys unchanged). Values are counts, bytes or
 * seconds; a `feature_*` key is a toggle (0 off, 1 on).
 */
export const LIMIT_KEYS = [
  "avatar_max_size",
  "emoji_max_size",
  "feature_animated_avatar",
  "feature_animated_banner",
  "feature_custom_discriminator",
  "feature_custom_notification_sounds",
  "feature_early_access",
  "feature_global_expressions",
  "feature_guild_create",
  "feature_higher_video_quality",
  "feature_per_guild_profiles",
  "feature_voice_entrance_sounds",
  "max_attachments_per_message",
  "max_bio_length",
  "max_bookmarks",
  "max_channels_per_category",
  "max_custom_backgrounds",
  "max_embeds_per_message",
  "max_favorite_meme_tags",
  "max_favorite_memes",
  "max_group_dm_recipients",
  "max_group_dms_per_user",
  "max_guild_channels",
  "max_guild_emojis",
  "max_guild_emojis_animated_more",
  "max_guild_emojis_animated",
  "max_guild_emojis_static_more",
  "max_guild_emojis_static",
  "max_guild_invites",
  "max_guild_members",
  "max_guild_roles",
  "max_guild_stickers_more",
  "max_guild_stickers",
  "max_guilds",
  "max_attachment_file_size",
  "max_message_length",
  "max_private_channels_per_user",
  "max_reactions_per_message",
  "max_relationships",
  "max_users_per_message_reaction",
  "max_voice_message_duration",
  "max_webhooks_per_channel",
  "max_webhooks_per_guild",
  "sticker_max_size"
] as const
export type LimitKey = (typeof LIMIT_KEYS)[number]

const MiB = 1024 * 1024

type Category = "messages" | "guilds" | "channels" | "expressions" | "files" | "social" | "features"
type Scope = "user" | "guild" | "both"

interface LimitSpec {
  readonly label: string
  readonly description: string
  readonly category: Category
  readonly scope: Scope
  /** Where nothing stored says otherwise: this server's limits before they were configurable. */
  readonly value: number
  /** What a stored value may be: the request parsers and columns stop at `max`. */
  readonly max: number
  readonly unit?: "bytes" | "count"
}

const count = (category: Category, scope: Scope, label: string, description: string, value: number, max: number): LimitSpec =>
  ({ label, description, category, scope, value, max, unit: "count" })
const bytes = (category: Category, scope: Scope, label: string, description: string, value: number, max: number): LimitSpec =>
  ({ label, description, category, scope, value, max, unit: "bytes" })
const toggle = (label: string, description: string, value: 0 | 1): LimitSpec =>
  ({ label, description, category: "features", scope: "user", value, max: 1 })

/** Ceilings that the request schemas themselves hold to, so a configured limit can never pass them. */
export const CEILINGS = {
  messageLength: 4000,
  attachmentsPerMessage: 10,
  attachmentFileBytes: 25 * MiB
} as const

export const LIMITS: { readonly [K in LimitKey]: LimitSpec } = {
  max_message_length: count("messages", "both", "Max Message Length", "Maximum number of characters per message", 2000, CEILINGS.messageLength),
  max_attachments_per_message: count("messages", "both", "Max Attachments per Message", "Maximum number of file attachments per message", 10, CEILINGS.attachmentsPerMessage),
  max_embeds_per_message: count("messages", "both", "Max Embeds per Message", "Maximum number of embeds per message", 10, 10),
  max_reactions_per_message: count("messages", "guild", "Max Reactions per Message", "Maximum distinct reactions per message", 20, 100),
  max_users_per_message_reaction: count("messages", "guild", "Max Users per Reaction", "Maximum users who can use the same reaction on a message", 5000, 1_000_000),
  max_voice_message_duration: count("messages", "both", "Max Voice Message Duration", "Maximum duration in seconds for voice message recordings", 1200, 1200),
  max_guilds: count("guilds", "user", "Max Guilds", "Maximum number of guilds a user can join", 100, 10_000),
  max_guild_members: count("guilds", "guild", "Max Guild Members", "Maximum members per guild", 1000, 10_000_000),
  max_guild_roles: count("guilds", "guild", "Max Guild Roles", "Maximum roles per guild", 250, 1000),
  max_guild_invites: count("guilds", "guild", "Max Guild Invites", "Maximum active invites per guild", 1000, 10_000),
  max_guild_channels: count("channels", "guild", "Max Guild Channels", "Maximum channels per guild", 500, 2000),
  max_channels_per_category: count("channels", "guild", "Max Channels per Category", "Maximum channels per category", 50, 500),
  max_webhooks_per_channel: count("channels", "guild", "Max Webhooks per Channel", "Maximum webhooks per channel", 15, 1000),
  max_webhooks_per_guild: count("channels", "guild", "Max Webhooks per Guild", "Maximum webhooks per guild", 1000, 10_000),
  max_guild_emojis: count("expressions", "guild", "Max Emojis", "Maximum emojis per guild (static and animated each)", 50, 10_000),
  max_guild_emojis_static: count("expressions", "guild", "Max Emojis (Legacy Static)", "Compatibility alias for older clients", 50, 10_000),
  max_guild_emojis_animated: count("expressions", "guild", "Max Emojis (Legacy Animated)", "Compatibility alias for older clients", 50, 10_000),
  max_guild_emojis_static_more: count("expressions", "guild", "Max Emojis (Legacy Static More)", "Compatibility alias for older clients", 250, 10_000),
  max_guild_emojis_animated_more: count("expressions", "guild", "Max Emojis (Legacy Animated More)", "Compatibility alias for older clients", 250, 10_000),
  max_guild_stickers: count("expressions", "guild", "Max Stickers", "Maximum stickers per guild", 50, 10_000),
  max_guild_stickers_more: count("expressions", "guild", "Max Stickers (Legacy More)", "Compatibility alias for older clients", 250, 10_000),
  emoji_max_size: bytes("expressions", "guild", "Emoji Max Size", "Maximum file size for emoji uploads", 256 * 1024, 256 * 1024),
  sticker_max_size: bytes("expressions", "guild", "Sticker Max Size", "Maximum file size for sticker uploads", 512 * 1024, 512 * 1024),
  max_attachment_file_size: bytes("files", "both", "Max Attachment File Size", "Maximum size of each attachment file", 25 * MiB, CEILINGS.attachmentFileBytes),
  avatar_max_size: bytes("files", "user", "Avatar Max Size", "Maximum file size for avatar uploads", 10 * MiB, 10 * MiB),
  max_custom_backgrounds: count("files", "user", "Max Custom Backgrounds", "Maximum custom profile backgrounds", 15, 1000),
  max_relationships: count("social", "user", "Max Relationships", "Maximum friends/blocked users", 1000, 100_000),
  max_private_channels_per_user: count("social", "user", "Max Private Channels", "Maximum DM channels per user", 1000, 100_000),
  max_group_dms_per_user: count("social", "user", "Max Group DMs", "Maximum group DMs a user can own", 150, 10_000),
  max_group_dm_recipients: count("social", "user", "Max Group DM Members", "Maximum members per group DM", 49, 1000),
  max_bio_length: count("social", "user", "Max Bio Length", "Maximum characters in user bio", 160, 4000),
  max_bookmarks: count("social", "user", "Max Bookmarks", "Maximum bookmarked messages", 50, 100_000),
  max_favorite_memes: count("social", "user", "Max Favorite Memes", "Maximum favorited memes", 50, 100_000),
  max_favorite_meme_tags: count("social", "user", "Max Favorite Meme Tags", "Maximum meme tags to track", 10, 100),
  feature_animated_avatar: toggle("Animated Avatar", "Allow animated avatar uploads", 1),
  feature_animated_banner: toggle("Animated Banner", "Allow animated banner uploads", 1),
  feature_custom_discriminator: toggle("Custom Discriminator", "Allow custom discriminator selection", 1),
  feature_custom_notification_sounds: toggle("Custom Notification Sounds", "Allow custom notification sounds", 1),
  feature_early_access: toggle("Early Access", "Access to beta features", 0),
  feature_global_expressions: toggle("Global Expressions", "Use expressions across all guilds", 1),
  feature_guild_create: toggle("Community Creation Access", "Create communities when instance policy disables it", 1),
  feature_higher_video_quality: toggle("Higher Video Quality", "Access to higher video streaming quality", 1),
  feature_per_guild_profiles: toggle("Per-Guild Profiles", "Different profile per guild", 1),
  feature_voice_entrance_sounds: toggle("Voice Entrance Sounds", "Play sound when joining voice", 1)
}

export const LIMIT_CATEGORIES: { readonly [C in Category]: string } = {
  messages: "Messages",
  guilds: "Guilds",
  channels: "Channels",
  expressions: "Expressions & Stickers",
  files: "Files & Attachments",
  social: "Social & Private",
  features: "Feature Toggles"
}

export type LimitValues = { readonly [K in LimitKey]: number }

export const DEFAULT_LIMITS: LimitValues = Object.fromEntries(LIMIT_KEYS.map((k) => [k, LIMITS[k].value])) as LimitValues

const isLimitKey = (key: string): key is LimitKey => Object.hasOwn(LIMITS, key)

const RuleId = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(64), Schema.isPattern(/^[A-Za-z0-9_.:-]+$/, {
  message: "INVALID_FORMAT: Rule ids are letters, digits and _ . : -"
}))
const Name = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(64), Schema.isPattern(/^[A-Za-z0-9_.:-]+$/, {
  message: "INVALID_FORMAT: Names are letters, digits and _ . : -"
}))

/** A rule's values: known keys only, each a whole number within its bounds. */
const RuleLimits = Schema.Record(Schema.String, Schema.Number).check(Schema.makeFilter((limits: Readonly<Record<string, number>>) => {
  for (const [key, value] of Object.entries(limits)) {
    if (!isLimitKey(key)) return `INVALID_LIMIT_KEY: Unknown limit key ${key.slice(0, 64)}`
    const { max } = LIMITS[key]
    if (!Number.isSafeInteger(value) || value < 0 || value > max) return `INVALID_LIMIT_VALUE: ${key} must be a whole number from 0 to ${max}`
  }
  return true
}))

export const LimitRule = Schema.Struct({
  id: RuleId,
  filters: Schema.optional(Schema.Struct({
    traits: Schema.optional(Schema.Array(Name).check(Schema.isMaxLength(32))),
    guildFeatures: Schema.optional(Schema.Array(Name).check(Schema.isMaxLength(32)))
  })),
  limits: RuleLimits
})
export type LimitRule = typeof LimitRule.Type

/**
 * What an operator stores: rules applied in order over the defaults, the
 * ones whose filters match (all their traits held by the user, all their
 * features by the guild) overriding what came before. A rule without filters
 * applies everywhere.
 */
export const LimitConfig = Schema.Struct({
  traitDefinitions: Schema.optional(Schema.Array(Name).check(Schema.isMaxLength(64))),
  rules: Schema.Array(LimitRule).check(
    Schema.isMaxLength(64),
    Schema.makeFilter((rules: ReadonlyArray<{ readonly id: string }>) =>
      new Set(rules.map((r) => r.id)).size === rules.length || "DUPLICATE_RULE_ID: Rule ids must be unique")
  )
})
export type LimitConfig = typeof LimitConfig.Type

/**
 * What applies when nothing is stored: the defaults, and the guild features
 * that raise the expression limits (conventions.md, Limits worth knowing).
 */
export const DEFAULT_CONFIG: LimitConfig = {
  traitDefinitions: [],
  rules: [
    { id: "default", limits: DEFAULT_LIMITS },
    { id: "more_emoji", filters: { guildFeatures: ["MORE_EMOJI"] }, limits: { max_guild_emojis: 250 } },
    { id: "more_stickers", filters: { guildFeatures: ["MORE_STICKERS"] }, limits: { max_guild_stickers: 250 } }
  ]
}

/** Whom a limit is asked for: the user's traits, the guild's features (either may be unknown). */
export interface LimitSubject {
  readonly traits?: ReadonlyArray<string>
  readonly guildFeatures?: ReadonlyArray<string>
}

const matches = (rule: LimitRule, subject: LimitSubject): boolean => {
  const held = (wanted: ReadonlyArray<string> | undefined, have: ReadonlyArray<string> | undefined) =>
    wanted === undefined || wanted.every((w) => have?.includes(w) === true)
  return held(rule.filters?.traits, subject.traits) && held(rule.filters?.guildFeatures, subject.guildFeatures)
}

/** The value of `key` for `subject` under `config`. */
export const resolveLimit = (config: LimitConfig, key: LimitKey, subject: LimitSubject = {}): number => {
  let value = DEFAULT_LIMITS[key]
  for (const rule of config.rules) {
    const override = rule.limits[key]
    if (override !== undefined && matches(rule, subject)) value = override
  }
  return value
}

/** A synchronous reader of the limits in force, which checks anywhere (HTTP or actors) are handed. */
export type LimitReader = (key: LimitKey, subject?: LimitSubject) => number

/** The defaults' reader, for code and tests that run with nothing configured. */
export const defaultLimits: LimitReader = (key, subject) => resolveLimit(DEFAULT_CONFIG, key, subject)
