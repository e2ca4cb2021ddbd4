import { Schema } from "effect"
import { BoundedText } from "../model/Common.ts"

const CategoryType = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 8 }))
const Tags = Schema.Array(BoundedText(2, 30)).check(Schema.isMaxLength(10))
const Description = BoundedText(10, 300)

export const DiscoveryCategoryResponse = Schema.Struct({ id: Schema.Number, name: Schema.String })

export const DiscoveryApplicationRequest = Schema.Struct({
  description: Description,
  category_type: CategoryType,
  primary_language: Schema.optional(BoundedText(2, 16)),
  custom_tags: Schema.optional(Tags)
})
export type DiscoveryApplicationRequest = typeof DiscoveryApplicationRequest.Type

export const DiscoveryApplicationPatchRequest = Schema.Struct({
  description: Schema.optionalKey(Description),
  category_type: Schema.optionalKey(CategoryType),
  primary_language: Schema.optionalKey(BoundedText(2, 16)),
  custom_tags: Schema.optionalKey(Tags)
})
export type DiscoveryApplicationPatchRequest = typeof DiscoveryApplicationPatchRequest.Type

export const DiscoveryApplicationResponse = Schema.Struct({
  guild_id: Schema.String,
  guild_nsfw_level: Schema.optional(Schema.NullOr(Schema.Int)),
  status: Schema.String,
  description: Schema.String,
  category_type: Schema.Number,
  primary_language: Schema.optional(Schema.NullOr(Schema.String)),
  custom_tags: Schema.Array(Schema.String),
  applied_at: Schema.String,
  reviewed_at: Schema.optional(Schema.NullOr(Schema.String)),
  review_reason: Schema.optional(Schema.NullOr(Schema.String)),
  removed_at: Schema.optional(Schema.NullOr(Schema.String)),
  removal_reason: Schema.optional(Schema.NullOr(Schema.String))
})
export type DiscoveryApplicationResponse = typeof DiscoveryApplicationResponse.Type

export const DiscoveryStatusResponse = Schema.Struct({
  application: Schema.optional(Schema.NullOr(DiscoveryApplicationResponse)),
  eligible: Schema.Boolean,
  min_member_count: Schema.Number
})

export const DiscoveryGuild = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  icon: Schema.optional(Schema.NullOr(Schema.String)),
  description: Schema.optional(Schema.NullOr(Schema.String)),
  category_type: Schema.Number,
  primary_language: Schema.optional(Schema.NullOr(Schema.String)),
  custom_tags: Schema.Array(Schema.String),
  member_count: Schema.Number,
  online_count: Schema.Number,
  features: Schema.Array(Schema.String),
  verification_level: Schema.Number
})
export type DiscoveryGuild = typeof DiscoveryGuild.Type

export const DiscoveryGuildListResponse = Schema.Struct({ guilds: Schema.Array(DiscoveryGuild), total: Schema.Number })

const IntFromQuery = (minimum: number, maximum: number) =>
  Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum, maximum }))

export const DiscoverySearchQuery = Schema.Struct({
  query: Schema.optional(BoundedText(0, 100)),
  category: Schema.optional(IntFromQuery(0, 8)),
  language: Schema.optional(BoundedText(0, 16)),
  tag: Schema.optional(BoundedText(0, 30)),
  sort_by: Schema.optional(Schema.Literals(["member_count", "online_count", "relevance"])),
  limit: Schema.optional(IntFromQuery(1, 48)),
  offset: Schema.optional(IntFromQuery(0, Number.MAX_SAFE_INTEGER))
})
export type DiscoverySearchQuery = typeof DiscoverySearchQuery.Type


