import { Schema } from "effect"
import { GuildMemberResponse } from "./Guilds.ts"

/** What operators see of guilds (part B; production's admin guild views). */

/** A guild in admin lists and after an admin change (GuildAdminResponse). */
export const GuildAdminResponse = Schema.Struct({
  id: Schema.String,
  owner_id: Schema.String,
  name: Schema.String,
  icon: Schema.NullOr(Schema.String),
  banner: Schema.NullOr(Schema.String),
  features: Schema.Array(Schema.String),
  member_count: Schema.Int
})
export type GuildAdminResponse = typeof GuildAdminResponse.Type

/** The answer of the admin guild writes that change the record (GuildUpdateResponse). */
export const GuildUpdateResponse = Schema.Struct({ guild: GuildAdminResponse })

const NullableString = Schema.NullOr(Schema.String)

/** The whole guild as an operator looks it up (LookupGuildResponse.guild). */
export const LookupGuild = Schema.Struct({
  id: Schema.String,
  owner_id: Schema.String,
  name: Schema.String,
  vanity_url_code: NullableString,
  icon: NullableString,
  banner: NullableString,
  splash: NullableString,
  embed_splash: NullableString,
  features: Schema.Array(Schema.String),
  verification_level: Schema.Int,
  mfa_level: Schema.Int,
  nsfw_level: Schema.Int,
  explicit_content_filter: Schema.Int,
  default_message_notifications: Schema.Int,
  afk_channel_id: NullableString,
  afk_timeout: Schema.Int,
  system_channel_id: NullableString,
  system_channel_flags: Schema.Int,
  rules_channel_id: NullableString,
  disabled_operations: Schema.Int,
  member_count: Schema.Int,
  channels: Schema.Array(Schema.Struct({
    id: Schema.String,
    name: NullableString,
    type: Schema.Int,
    position: Schema.Int,
    parent_id: NullableString
  })),
  roles: Schema.Array(Schema.Struct({
    id: Schema.String,
    name: Schema.String,
    color: Schema.Int,
    position: Schema.Int,
    permissions: Schema.String,
    hoist: Schema.Boolean,
    mentionable: Schema.Boolean
  }))
})
export type LookupGuild = typeof LookupGuild.Type

/** A page of members by offset (ListGuildMembersResponse). */
export const GuildMembersPage = Schema.Struct({
  members: Schema.Array(GuildMemberResponse),
  total: Schema.Int,
  limit: Schema.Int,
  offset: Schema.Int
})

/** An emoji or sticker as the actor holds it; the HTTP side turns its hash into a media URL. */
export const GuildAsset = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  animated: Schema.Boolean,
  creator_id: Schema.String,
  media_hash: Schema.String
})
