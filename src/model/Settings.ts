import { Schema, Struct } from "effect"
import { BoundedText } from "./Common.ts"
import { Snowflake } from "./Ids.ts"

export const STATUSES = ["online", "dnd", "idle", "invisible"] as const
export const THEMES = ["dark", "dark_legacy", "coal", "light", "system"] as const
export const LOCALES = [
  "ar", "bg", "cs", "da", "de", "el", "en-GB", "en-US", "es-ES", "es-419", "fi", "fr", "he", "hi", "hr", "hu", "id",
  "it", "ja", "ko", "lt", "nl", "no", "pl", "pt-BR", "ro", "ru", "sv-SE", "th", "tr", "uk", "vi", "zh-CN", "zh-TW"
] as const
export const FOLDER_ICONS = ["folder", "star", "heart", "bookmark", "game_controller", "shield", "music_note"] as const

const Status = Schema.Literals(STATUSES)
const Int32 = Schema.Int.check(Schema.isBetween({ minimum: -2147483648, maximum: 2147483647 }))
const ZeroToTwo = Schema.Literals([0, 1, 2])
/** A bit field of which only the documented bits may be set. */
const Bits = (highest: number) =>
  Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2 * highest - 1 }, { message: `INVALID_FORMAT: Unknown flag bits (highest is ${highest})` }))

/** FriendSourceFlags: mutual friends 1, mutual guilds 2, anyone 4. */
export const FriendSourceFlags = Bits(4)
/** IncomingCallFlags: friends of friends 1, guild members 2, everyone 4, friends only 8, nobody 16, silent everyone 32. */
const IncomingCallFlags = Bits(32)
/** GroupDmAddPermissionFlags: friends of friends 1, guild members 2, everyone 4, friends only 8, nobody 16. */
const GroupDmAddPermissionFlags = Bits(16)
/** GuildFolderFlags: show the icon when collapsed 1. */
const GuildFolderFlags = Bits(1)
const Color = Schema.Int.check(
  Schema.isGreaterThanOrEqualTo(0, { message: "COLOR_VALUE_TOO_LOW: A color is at least 0" }),
  Schema.isLessThanOrEqualTo(0xffffff, { message: "COLOR_VALUE_TOO_HIGH: A color is at most 16777215 (0xFFFFFF)" })
)

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?$/
/** A moment: ISO 8601 text or unix milliseconds. */
export const Moment = Schema.Union([
  Schema.String.check(Schema.isPattern(ISO, { message: "INVALID_ISO_TIMESTAMP: Not an ISO 8601 timestamp" })),
  Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 8_640_000_000_000_000 }))
])
export type Moment = typeof Moment.Type

const Ids = (max: number) => Schema.Array(Snowflake).check(Schema.isMaxLength(max, { message: `At most ${max} ids` }))

export const GuildFolder = Schema.Struct({
  id: Int32,
  name: Schema.optional(Schema.NullOr(BoundedText(0, 100))),
  color: Schema.optional(Schema.NullOr(Color)),
  flags: Schema.optional(GuildFolderFlags),
  icon: Schema.optional(Schema.Literals(FOLDER_ICONS)),
  guild_ids: Ids(200)
})

export const CustomStatusPayload = Schema.Struct({
  text: Schema.optional(Schema.NullOr(BoundedText(0, 128))),
  expires_at: Schema.optional(Schema.NullOr(Moment)),
  emoji_id: Schema.optional(Schema.NullOr(Snowflake)),
  emoji_name: Schema.optional(Schema.NullOr(BoundedText(1, 32)))
})
export type CustomStatusPayload = typeof CustomStatusPayload.Type

/** UserSettingsUpdateRequest; `flags` is the older name of `friend_source_flags`. */
export const UserSettingsUpdateRequest = Schema.Struct({
  flags: Schema.optionalKey(FriendSourceFlags),
  status: Schema.optionalKey(Status),
  status_resets_at: Schema.optional(Schema.NullOr(Moment)),
  status_resets_to: Schema.optional(Schema.NullOr(Status)),
  theme: Schema.optionalKey(Schema.Literals(THEMES)),
  locale: Schema.optionalKey(Schema.Literals(LOCALES)),
  restricted_guilds: Schema.optionalKey(Ids(200)),
  bot_restricted_guilds: Schema.optionalKey(Ids(200)),
  default_guilds_restricted: Schema.optionalKey(Schema.Boolean),
  bot_default_guilds_restricted: Schema.optionalKey(Schema.Boolean),
  inline_attachment_media: Schema.optionalKey(Schema.Boolean),
  inline_embed_media: Schema.optionalKey(Schema.Boolean),
  gif_auto_play: Schema.optionalKey(Schema.Boolean),
  render_embeds: Schema.optionalKey(Schema.Boolean),
  render_reactions: Schema.optionalKey(Schema.Boolean),
  animate_emoji: Schema.optionalKey(Schema.Boolean),
  animate_stickers: Schema.optionalKey(ZeroToTwo),
  render_spoilers: Schema.optionalKey(ZeroToTwo),
  message_display_compact: Schema.optionalKey(Schema.Boolean),
  friend_source_flags: Schema.optionalKey(FriendSourceFlags),
  incoming_call_flags: Schema.optionalKey(IncomingCallFlags),
  group_dm_add_permission_flags: Schema.optionalKey(GroupDmAddPermissionFlags),
  guild_folders: Schema.optionalKey(Schema.Array(GuildFolder).check(Schema.isMaxLength(200, { message: "At most 200 folders" }))),
  custom_status: Schema.optional(Schema.NullOr(CustomStatusPayload)),
  afk_timeout: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 60, maximum: 600 }))),
  time_format: Schema.optionalKey(ZeroToTwo),
  developer_mode: Schema.optionalKey(Schema.Boolean),
  trusted_domains: Schema.optionalKey(Schema.Array(BoundedText(1, 253)).check(Schema.isMaxLength(1000, { message: "At most 1000 domains" }))),
  default_hide_muted_channels: Schema.optionalKey(Schema.Boolean),
  sensitive_content_friend_dm_filter: Schema.optionalKey(ZeroToTwo),
  sensitive_content_non_friend_dm_filter: Schema.optionalKey(ZeroToTwo),
  sensitive_content_guild_filter: Schema.optionalKey(Schema.Literals([0, 1])),
  suppress_unprivileged_self_mentions: Schema.optionalKey(Schema.Boolean),
  suppress_unprivileged_self_mentions_bypass_user_ids: Schema.optional(Schema.NullOr(Ids(200))),
  staff_dm_access_user_ids: Schema.optional(Schema.NullOr(Ids(200))),
  profile_privacy: Schema.optionalKey(ZeroToTwo),
  synced_preferences: Schema.optional(Schema.NullOr(Schema.String.check(
    Schema.isMaxLength(349_528),
    Schema.isPattern(/^[A-Za-z0-9+/_-]*={0,2}$/, { message: "INVALID_FORMAT: Not base64" })
  )))
})
export type UserSettingsUpdateRequest = typeof UserSettingsUpdateRequest.Type

const NullableString = Schema.NullOr(Schema.String)

/** UserSettingsResponse, without theme and locale (they are columns of `users`). */
const StoredFields = {
  status: Schema.String,
  status_resets_at: Schema.optional(NullableString),
  status_resets_to: Schema.optional(NullableString),
  restricted_guilds: Schema.Array(Schema.String),
  bot_restricted_guilds: Schema.Array(Schema.String),
  default_guilds_restricted: Schema.Boolean,
  bot_default_guilds_restricted: Schema.Boolean,
  inline_attachment_media: Schema.Boolean,
  inline_embed_media: Schema.Boolean,
  gif_auto_play: Schema.Boolean,
  render_embeds: Schema.Boolean,
  render_reactions: Schema.Boolean,
  animate_emoji: Schema.Boolean,
  animate_stickers: Schema.Int,
  render_spoilers: Schema.Int,
  message_display_compact: Schema.Boolean,
  friend_source_flags: Schema.Int,
  incoming_call_flags: Schema.Int,
  group_dm_add_permission_flags: Schema.Int,
  guild_folders: Schema.Array(Schema.Struct({
    id: Schema.Int,
    name: NullableString,
    color: Schema.NullOr(Schema.Int),
    flags: Schema.Int,
    icon: Schema.String,
    guild_ids: Schema.Array(Schema.String)
  })),
  custom_status: Schema.NullOr(Schema.Struct({
    text: Schema.optional(NullableString),
    expires_at: Schema.optional(NullableString),
    emoji_id: Schema.optional(NullableString),
    emoji_name: Schema.optional(NullableString),
    emoji_animated: Schema.Boolean
  })),
  afk_timeout: Schema.Int,
  time_format: Schema.Int,
  developer_mode: Schema.Boolean,
  trusted_domains: Schema.Array(Schema.String),
  default_hide_muted_channels: Schema.Boolean,
  sensitive_content_friend_dm_filter: Schema.Int,
  sensitive_content_non_friend_dm_filter: Schema.Int,
  sensitive_content_guild_filter: Schema.Int,
  suppress_unprivileged_self_mentions: Schema.Boolean,
  suppress_unprivileged_self_mentions_bypass_user_ids: Schema.Array(Schema.String),
  staff_dm_access_user_ids: Schema.Array(Schema.String),
  synced_preferences: Schema.String,
  profile_privacy: Schema.Int,
  default_share_voice_activity: Schema.Boolean
}

export const UserSettingsResponse = Schema.Struct({ ...StoredFields, theme: Schema.String, locale: Schema.String })
export type UserSettingsResponse = typeof UserSettingsResponse.Type

/** What `user_settings.data` holds: the fields the user changed, each as the response shows it. */
export const StoredSettings = Schema.Struct(StoredFields).mapFields(Struct.map(Schema.optionalKey))
export type StoredSettings = typeof StoredSettings.Type
