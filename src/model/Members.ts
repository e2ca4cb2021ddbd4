import { Schema } from "effect"
import { BoundedText } from "./Common.ts"
import { CarriedId, ChannelId, Snowflake } from "./Ids.ts"

const Int32 = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2147483647 }))
const Int53 = Schema.Int.check(Schema.isBetween({ minimum: -9007199254740991, maximum: 9007199254740991 }))
const Colour = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 16777215 }))

/** GuildMemberUpdateRequest (and MyGuildMemberUpdateRequest, the same fields): part A's limits. */
export const MemberUpdateRequest = Schema.Struct({
  nick: Schema.optional(Schema.NullOr(BoundedText(1, 32))),
  roles: Schema.optionalKey(Schema.Array(Snowflake).check(Schema.isMaxLength(100))),
  avatar: Schema.optional(Schema.NullOr(Schema.String)),
  banner: Schema.optional(Schema.NullOr(Schema.String)),
  bio: Schema.optional(Schema.NullOr(BoundedText(1, 320))),
  pronouns: Schema.optional(Schema.NullOr(BoundedText(1, 40))),
  accent_color: Schema.optional(Schema.NullOr(Colour)),
  profile_flags: Schema.optional(Schema.NullOr(Int32)),
  mention_flags: Schema.optional(Schema.NullOr(Int32)),
  mute: Schema.optionalKey(Schema.Boolean),
  deaf: Schema.optionalKey(Schema.Boolean),
  communication_disabled_until: Schema.optional(Schema.NullOr(Schema.String)),
  timeout_reason: Schema.optional(Schema.NullOr(BoundedText(1, 512))),
  channel_id: Schema.optional(Schema.NullOr(ChannelId)),
  connection_id: Schema.optional(Schema.NullOr(Schema.String))
})
export type MemberUpdateRequest = typeof MemberUpdateRequest.Type

/** JoinSourceType. */
export const JoinSourceType = Schema.Literals([0, 1, 2, 3, 4, 6])

/** GuildMemberSearchRequest; timestamps are unix seconds. */
export const MemberSearchRequest = Schema.Struct({
  query: Schema.optional(BoundedText(0, 100)),
  limit: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))),
  offset: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 9007199254740991 }))),
  role_ids: Schema.optional(Schema.Array(Snowflake).check(Schema.isMaxLength(10))),
  joined_at_gte: Schema.optional(Int53),
  joined_at_lte: Schema.optional(Int53),
  join_source_type: Schema.optional(Schema.Array(JoinSourceType).check(Schema.isMaxLength(10))),
  source_invite_code: Schema.optional(Schema.Array(Schema.String).check(Schema.isMaxLength(10))),
  is_bot: Schema.optional(Schema.Boolean),
  user_created_at_gte: Schema.optional(Int53),
  user_created_at_lte: Schema.optional(Int53),
  sort_by: Schema.optional(Schema.Literals(["joinedAt", "relevance"])),
  sort_order: Schema.optional(Schema.Literals(["asc", "desc"]))
})
export type MemberSearchRequest = typeof MemberSearchRequest.Type

export const MemberSearchResult = Schema.Struct({
  id: Schema.String,
  guild_id: Schema.String,
  user_id: Schema.String,
  username: Schema.String,
  discriminator: Schema.String,
  global_name: Schema.NullOr(Schema.String),
  nickname: Schema.NullOr(Schema.String),
  role_ids: Schema.Array(Schema.String),
  joined_at: Schema.Number,
  supplemental: Schema.Struct({
    join_source_type: Schema.optional(Schema.NullOr(Schema.Int)),
    source_invite_code: Schema.NullOr(Schema.String),
    inviter_id: Schema.NullOr(Schema.String)
  }),
  is_bot: Schema.Boolean
})
export type MemberSearchResult = typeof MemberSearchResult.Type

export const MemberSearchResponse = Schema.Struct({
  guild_id: Schema.String,
  members: Schema.Array(MemberSearchResult),
  page_result_count: Schema.Int,
  total_result_count: Schema.Int,
  indexing: Schema.Boolean
})
export type MemberSearchResponse = typeof MemberSearchResponse.Type

/**
 * A member update as the actor receives it: the request's fields after the
 * HTTP side checked their shapes and turned images into hashes.
 */
export const MemberPatch = Schema.Struct({
  nick: Schema.optional(Schema.NullOr(Schema.String)),
  roles: Schema.optional(Schema.Array(Schema.String)),
  communication_disabled_until: Schema.optional(Schema.NullOr(Schema.String)),
  mute: Schema.optional(Schema.Boolean),
  deaf: Schema.optional(Schema.Boolean),
  channel_id: Schema.optional(Schema.NullOr(CarriedId.ChannelId)),
  avatar: Schema.optional(Schema.NullOr(Schema.String)),
  banner: Schema.optional(Schema.NullOr(Schema.String)),
  bio: Schema.optional(Schema.NullOr(Schema.String)),
  pronouns: Schema.optional(Schema.NullOr(Schema.String)),
  accent_color: Schema.optional(Schema.NullOr(Schema.Int)),
  profile_flags: Schema.optional(Schema.NullOr(Schema.Int))
})
export type MemberPatch = typeof MemberPatch.Type
