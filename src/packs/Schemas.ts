import { Schema } from "effect"
import { BoundedText } from "../model/Common.ts"
import { UserPartialResponse } from "../model/Users.ts"

export const PackType = Schema.Literals(["emoji", "sticker"])
export type PackType = typeof PackType.Type

export const PackCreateRequest = Schema.Struct({
  name: BoundedText(1, 64),
  description: Schema.optional(Schema.NullOr(BoundedText(0, 256)))
})

export const PackSummaryResponse = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  type: PackType,
  creator_id: Schema.String,
  created_at: Schema.String,
  updated_at: Schema.String,
  installed_at: Schema.optional(Schema.String)
})
export type PackSummaryResponse = typeof PackSummaryResponse.Type

const PackKindDashboard = Schema.Struct({
  installed_limit: Schema.Int,
  created_limit: Schema.Int,
  installed: Schema.Array(PackSummaryResponse),
  created: Schema.Array(PackSummaryResponse)
})
export const PackDashboardResponse = Schema.Struct({ emoji: PackKindDashboard, sticker: PackKindDashboard })

const Int32 = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2147483647 }))

export const PackInviteCreateRequest = Schema.Struct({
  max_uses: Schema.optional(Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 })))),
  max_age: Schema.optional(Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 604800 })))),
  unique: Schema.optional(Schema.NullOr(Schema.Boolean))
})

/** A pack invite as anyone holding its code sees it (GET and POST /invites/{code}). */
export const PackInviteResponse = Schema.Struct({
  code: Schema.String,
  /** 2 emoji pack, 3 sticker pack. */
  type: Schema.Literals([2, 3]),
  pack: Schema.Struct({
    id: Schema.String,
    name: Schema.String,
    description: Schema.optional(Schema.NullOr(Schema.String)),
    type: PackType,
    creator_id: Schema.String,
    created_at: Schema.String,
    updated_at: Schema.String,
    creator: UserPartialResponse
  }),
  inviter: Schema.optional(Schema.NullOr(UserPartialResponse)),
  expires_at: Schema.optional(Schema.NullOr(Schema.String)),
  temporary: Schema.Boolean
})
export type PackInviteResponse = typeof PackInviteResponse.Type

export const PackInviteMetadataResponse = Schema.Struct({
  ...PackInviteResponse.fields,
  created_at: Schema.String,
  uses: Int32,
  max_uses: Int32
})
export type PackInviteMetadataResponse = typeof PackInviteMetadataResponse.Type
