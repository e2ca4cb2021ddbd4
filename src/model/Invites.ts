import { Schema, Struct } from "effect"
import { GuildResponse } from "./Guilds.ts"
import { UserPartialResponse } from "./Users.ts"

const NullableString = Schema.NullOr(Schema.String)
const Count = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2147483647 }))

/** Conventions, Limits: invites per guild. */
export const MAX_INVITES_PER_GUILD = 1000
export const DEFAULT_INVITE_MAX_AGE = 86400

export const ChannelInviteCreateRequest = Schema.Struct({
  max_uses: Schema.optional(Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 })))),
  max_age: Schema.optional(Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 604800 })))),
  unique: Schema.optional(Schema.NullOr(Schema.Boolean)),
  temporary: Schema.optional(Schema.NullOr(Schema.Boolean))
})
export type ChannelInviteCreateRequest = typeof ChannelInviteCreateRequest.Type

/** The guild as an invite shows it to anyone holding the code. */
export const InviteGuild = Schema.Struct(
  Struct.pick(GuildResponse.fields, ["id", "name", "icon", "banner", "splash", "splash_card_alignment", "embed_splash", "features"])
)

export const ChannelPartialResponse = Schema.Struct({
  id: Schema.String,
  name: Schema.optional(NullableString),
  type: Schema.Int
})

export const GuildInviteResponse = Schema.Struct({
  code: Schema.String,
  type: Schema.Literal(0),
  guild: InviteGuild,
  channel: ChannelPartialResponse,
  inviter: Schema.NullOr(UserPartialResponse),
  member_count: Count,
  presence_count: Count,
  expires_at: NullableString,
  temporary: Schema.Boolean
})
export type GuildInviteResponse = typeof GuildInviteResponse.Type

export const GuildInviteMetadataResponse = Schema.Struct({
  ...GuildInviteResponse.fields,
  created_at: Schema.String,
  uses: Count,
  max_uses: Count,
  max_age: Count
})
export type GuildInviteMetadataResponse = typeof GuildInviteMetadataResponse.Type
