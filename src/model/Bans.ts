import { Schema } from "effect"
import { BoundedText } from "./Common.ts"
import { UserPartialResponse } from "./Users.ts"

/** Part A, Limits: delete_message_days 0 to 7, reason at most 512, ban_duration_seconds 0 = permanent. */
export const MAX_BAN_REASON = 512

export const GuildBanCreateRequest = Schema.Struct({
  delete_message_days: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 7 }))),
  reason: Schema.optional(Schema.NullOr(BoundedText(0, MAX_BAN_REASON))),
  ban_duration_seconds: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }))
  )
})
export type GuildBanCreateRequest = typeof GuildBanCreateRequest.Type

export const GuildBanResponse = Schema.Struct({
  user: UserPartialResponse,
  reason: Schema.NullOr(Schema.String),
  moderator_id: Schema.String,
  banned_at: Schema.String,
  expires_at: Schema.NullOr(Schema.String)
})
export type GuildBanResponse = typeof GuildBanResponse.Type
