import { Schema } from "effect"
import { BoundedText } from "./Common.ts"
import { Snowflake } from "./Ids.ts"
import { UserPartialResponse } from "./Users.ts"

const NullableString = Schema.NullOr(Schema.String)
const NullableSnowflake = Schema.NullOr(Schema.String)
const Int32 = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2147483647 }))

/**
 * A role as clients read it. Beyond the production shape: `colors` (discord.js
 * reads a role's colour only from it, and fails without it), `managed` and, for
 * a bot's own role, `tags.bot_id`, as on Discord.
 */
export const GuildRoleResponse = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  color: Schema.Int,
  colors: Schema.optional(Schema.Struct({
    primary_color: Schema.Int,
    secondary_color: Schema.NullOr(Schema.Int),
    tertiary_color: Schema.NullOr(Schema.Int)
  })),
  position: Schema.Int,
  hoist_position: Schema.optional(Schema.NullOr(Schema.Int)),
  permissions: Schema.String,
  hoist: Schema.Boolean,
  managed: Schema.optional(Schema.Boolean),
  mentionable: Schema.Boolean,
  unicode_emoji: Schema.optional(NullableString),
  tags: Schema.optional(Schema.Struct({ bot_id: Schema.String }))
})
export type GuildRoleResponse = typeof GuildRoleResponse.Type

export const ChannelResponse = Schema.Struct({
  id: Schema.String,
  guild_id: Schema.optional(Schema.String),
  name: Schema.optional(Schema.String),
  topic: Schema.optional(NullableString),
  type: Schema.Int,
  position: Schema.optional(Schema.Int),
  parent_id: Schema.optional(NullableSnowflake),
  nsfw: Schema.optional(Schema.Boolean),
  url: Schema.optional(NullableString),
  bitrate: Schema.optional(Schema.NullOr(Schema.Int)),
  user_limit: Schema.optional(Schema.NullOr(Schema.Int)),
  rate_limit_per_user: Schema.optional(Schema.Int),
  rtc_region: Schema.optional(NullableString),
  permission_overwrites: Schema.optional(Schema.Array(Schema.Struct({
    id: Schema.String,
    type: Schema.Int,
    allow: Schema.String,
    deny: Schema.String
  }))),
  /** DM and group DM channels (src/dms): the other recipients, the group's owner, icon and nicknames. */
  last_message_id: Schema.optional(NullableSnowflake),
  recipients: Schema.optional(Schema.Array(UserPartialResponse)),
  owner_id: Schema.optional(NullableSnowflake),
  icon: Schema.optional(NullableString),
  nicks: Schema.optional(Schema.Record(Schema.String, Schema.String))
})
export type ChannelResponse = typeof ChannelResponse.Type

export const GuildResponse = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  icon: NullableString,
  banner: NullableString,
  splash: NullableString,
  splash_card_alignment: Schema.Int,
  embed_splash: NullableString,
  vanity_url_code: NullableString,
  owner_id: Schema.String,
  system_channel_id: NullableSnowflake,
  system_channel_flags: Schema.Int,
  rules_channel_id: NullableSnowflake,
  afk_channel_id: NullableSnowflake,
  afk_timeout: Schema.Int,
  features: Schema.Array(Schema.String),
  verification_level: Schema.Int,
  mfa_level: Schema.Int,
  nsfw_level: Schema.Int,
  nsfw: Schema.Boolean,
  content_warning_level: Schema.Int,
  content_warning_text: NullableString,
  explicit_content_filter: Schema.Int,
  default_message_notifications: Schema.Int,
  disabled_operations: Schema.Int,
  message_history_cutoff: NullableString,
  permissions: Schema.optional(Schema.String),
  roles: Schema.optional(Schema.Array(GuildRoleResponse)),
  channels: Schema.optional(Schema.Array(ChannelResponse)),
  member_count: Schema.optional(Schema.Int)
})
export type GuildResponse = typeof GuildResponse.Type

export const GuildMemberResponse = Schema.Struct({
  user: UserPartialResponse,
  nick: Schema.optional(NullableString),
  avatar: Schema.optional(NullableString),
  banner: Schema.optional(NullableString),
  accent_color: Schema.optional(Schema.NullOr(Schema.Int)),
  roles: Schema.Array(Schema.String),
  joined_at: Schema.String,
  mute: Schema.Boolean,
  deaf: Schema.Boolean,
  communication_disabled_until: Schema.optional(NullableString),
  profile_flags: Schema.optional(Schema.NullOr(Schema.Int))
})
export type GuildMemberResponse = typeof GuildMemberResponse.Type

const GuildName = BoundedText(1, 100)
const Level = (max: number) => Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: max }))

export const GuildCreateRequest = Schema.Struct({
  name: GuildName,
  icon: Schema.optional(Schema.NullOr(Schema.String)),
  empty_features: Schema.optional(Schema.Boolean)
})
export type GuildCreateRequest = typeof GuildCreateRequest.Type

/** The settings a guild PATCH may change (GuildUpdateRequest, less the MFA proof fields). */
export const GuildUpdateRequest = Schema.Struct({
  name: Schema.optionalKey(GuildName),
  icon: Schema.optional(Schema.NullOr(Schema.String)),
  banner: Schema.optional(Schema.NullOr(Schema.String)),
  splash: Schema.optional(Schema.NullOr(Schema.String)),
  embed_splash: Schema.optional(Schema.NullOr(Schema.String)),
  splash_card_alignment: Schema.optionalKey(Level(2)),
  system_channel_id: Schema.optional(Schema.NullOr(Snowflake)),
  system_channel_flags: Schema.optionalKey(Int32),
  afk_channel_id: Schema.optional(Schema.NullOr(Snowflake)),
  afk_timeout: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 60, maximum: 3600 }))),
  default_message_notifications: Schema.optionalKey(Level(1)),
  verification_level: Schema.optionalKey(Level(4)),
  mfa_level: Schema.optionalKey(Level(1)),
  nsfw_level: Schema.optionalKey(Level(3)),
  nsfw: Schema.optionalKey(Schema.Boolean),
  content_warning_level: Schema.optionalKey(Level(2)),
  content_warning_text: Schema.optional(Schema.NullOr(BoundedText(0, 200))),
  explicit_content_filter: Schema.optionalKey(Level(2)),
  features: Schema.optionalKey(Schema.Array(BoundedText(1, 64)).check(Schema.isMaxLength(100))),
  message_history_cutoff: Schema.optional(Schema.NullOr(Schema.String)),
  password: Schema.optionalKey(Schema.String),
  mfa_method: Schema.optionalKey(Schema.Literals(["totp", "webauthn"])),
  mfa_code: Schema.optionalKey(Schema.String),
  webauthn_response: Schema.optional(Schema.Unknown),
  webauthn_challenge: Schema.optionalKey(Schema.String)
})
export type GuildUpdateRequest = typeof GuildUpdateRequest.Type
