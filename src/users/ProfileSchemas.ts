import { Schema } from "effect"
import { GuildMemberResponse } from "../model/Guilds.ts"
import { UserPartialResponse } from "../model/Users.ts"

const NullableString = Schema.NullOr(Schema.String)
const NullableInt = Schema.NullOr(Schema.Int)

/** The profile fields anyone allowed to see the profile gets (user_profile, guild_member_profile). */
const ProfileFields = {
  bio: NullableString,
  pronouns: NullableString,
  banner: NullableString,
  accent_color: NullableInt
}

export const UserProfileFullResponse = Schema.Struct({
  user: UserPartialResponse,
  user_profile: Schema.Struct({ ...ProfileFields, banner_color: Schema.optional(NullableInt) }),
  guild_member: Schema.optional(GuildMemberResponse),
  guild_member_profile: Schema.optional(Schema.NullOr(Schema.Struct(ProfileFields))),
  premium_type: Schema.optional(Schema.Int),
  premium_since: Schema.optional(Schema.String),
  premium_lifetime_sequence: Schema.optional(Schema.Int),
  mutual_friends: Schema.optional(Schema.Array(UserPartialResponse)),
  mutual_guilds: Schema.optional(Schema.Array(Schema.Struct({ id: Schema.String, nick: NullableString }))),
  connected_accounts: Schema.optional(Schema.Array(Schema.Struct({
    id: Schema.String,
    type: Schema.String,
    name: Schema.String,
    verified: Schema.Boolean,
    visibility_flags: Schema.Int,
    sort_order: Schema.Int
  }))),
  timezone_offset: NullableInt,
  profile_limited: Schema.optional(Schema.Boolean)
})
export type UserProfileFullResponse = typeof UserProfileFullResponse.Type
