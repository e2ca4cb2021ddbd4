import { Schema } from "effect"
import { BoundedText } from "./Common.ts"
import { Snowflake } from "./Ids.ts"

/** Channel types: those a guild holds (ChannelCreateRequest variants), and the DM kinds. */
export const ChannelType = { TEXT: 0, DM: 1, VOICE: 2, GROUP_DM: 3, CATEGORY: 4, LINK: 998 } as const

/** UnsignedInt64Type: a permission bit set, as a decimal string or a safe integer. */
export const PermissionBits = Schema.Union([
  Schema.String.check(Schema.isPattern(/^[0-9]{1,20}$/, { message: "INVALID_INTEGER_FORMAT: Not an unsigned integer" })),
  Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
])

export const OverwriteRequest = Schema.Struct({
  id: Snowflake,
  type: Schema.Literals([0, 1]),
  allow: Schema.optional(PermissionBits),
  deny: Schema.optional(PermissionBits)
})
export type OverwriteRequest = typeof OverwriteRequest.Type

const Topic = Schema.NullOr(BoundedText(0, 1024))
const Bitrate = Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 8000, maximum: 320000 })))
const UserLimit = Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 99 })))
const SlowMode = Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 21600 })))
const Overwrites = Schema.Array(OverwriteRequest).check(Schema.isMaxLength(500))
export const ChannelName = BoundedText(1, 100)

/** The four create variants share every field but `type`; one struct with the type as a literal says the same. */
export const ChannelCreateRequest = Schema.Struct({
  type: Schema.Literals([ChannelType.TEXT, ChannelType.VOICE, ChannelType.CATEGORY, ChannelType.LINK]),
  name: ChannelName,
  topic: Schema.optional(Topic),
  url: Schema.optional(Schema.NullOr(Schema.String)),
  parent_id: Schema.optional(Schema.NullOr(Snowflake)),
  bitrate: Schema.optional(Bitrate),
  user_limit: Schema.optional(UserLimit),
  rate_limit_per_user: Schema.optional(SlowMode),
  nsfw: Schema.optional(Schema.Boolean),
  permission_overwrites: Schema.optional(Overwrites)
})
export type ChannelCreateRequest = typeof ChannelCreateRequest.Type

/** ChannelUpdateRequest (guild variants): `type`, when given, must be the channel's own. */
export const ChannelUpdateRequest = Schema.Struct({
  type: Schema.optional(Schema.Literals([ChannelType.TEXT, ChannelType.VOICE, ChannelType.CATEGORY, ChannelType.LINK])),
  name: Schema.optional(Schema.NullOr(ChannelName)),
  topic: Schema.optional(Topic),
  url: Schema.optional(Schema.NullOr(Schema.String)),
  parent_id: Schema.optional(Schema.NullOr(Snowflake)),
  bitrate: Schema.optional(Bitrate),
  user_limit: Schema.optional(UserLimit),
  rate_limit_per_user: Schema.optional(SlowMode),
  nsfw: Schema.optional(Schema.NullOr(Schema.Boolean)),
  rtc_region: Schema.optional(Schema.NullOr(Schema.String)),
  permission_overwrites: Schema.optionalKey(Overwrites)
})
export type ChannelUpdateRequest = typeof ChannelUpdateRequest.Type

/** PATCH /channels/{id}: the guild variants, or the group DM one (type 3 with `icon`, `owner_id`, `nicks`: src/dms). */
export const ChannelPatchRequest = Schema.Struct({
  ...ChannelUpdateRequest.fields,
  type: Schema.optionalKey(Schema.Literals([ChannelType.TEXT, ChannelType.VOICE, ChannelType.CATEGORY, ChannelType.LINK, 3])),
  icon: Schema.optional(Schema.NullOr(Schema.String)),
  owner_id: Schema.optional(Schema.NullOr(Snowflake)),
  nicks: Schema.optional(Schema.NullOr(Schema.Record(Snowflake, Schema.NullOr(BoundedText(1, 32)))))
})
export type ChannelPatchRequest = typeof ChannelPatchRequest.Type

export const ChannelPositionUpdateRequest = Schema.Array(Schema.Struct({
  id: Snowflake,
  position: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }))),
  parent_id: Schema.optional(Schema.NullOr(Snowflake)),
  preceding_sibling_id: Schema.optional(Schema.NullOr(Snowflake)),
  lock_permissions: Schema.optional(Schema.Boolean)
})).check(Schema.isMinLength(1), Schema.isMaxLength(500))
export type ChannelPositionUpdateRequest = typeof ChannelPositionUpdateRequest.Type

export const PermissionOverwriteCreateRequest = Schema.Struct({
  type: Schema.Literals([0, 1]),
  allow: Schema.optional(PermissionBits),
  deny: Schema.optional(PermissionBits)
})

export const RtcRegionResponse = Schema.Struct({ id: Schema.String, name: Schema.String, emoji: Schema.String })
