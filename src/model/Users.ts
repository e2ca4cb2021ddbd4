import { Schema } from "effect"
import { publicUserFlags } from "./UserFlags.ts"

const Id = Schema.String
const NullableString = Schema.NullOr(Schema.String)
const NullableInt = Schema.NullOr(Schema.Int)

export const UserPartialResponse = Schema.Struct({
  id: Id,
  username: Schema.String,
  discriminator: Schema.String,
  global_name: NullableString,
  avatar: NullableString,
  avatar_color: NullableInt,
  bot: Schema.optional(Schema.Boolean),
  system: Schema.optional(Schema.Boolean),
  flags: Schema.Int,
  /** MentionReplyPreferences; shown only when the user has one. */
  mention_flags: Schema.optional(Schema.Int)
})
export type UserPartialResponse = typeof UserPartialResponse.Type

/** A self-service deletion of one's messages not yet done (POST /users/@me/messages/delete). */
export const PendingDeletion = Schema.Struct({
  scheduled_at: Schema.String,
  channel_count: Schema.Int,
  message_count: Schema.Int
})
export type PendingDeletion = typeof PendingDeletion.Type

export const UserPrivateResponse = Schema.Struct({
  ...UserPartialResponse.fields,
  is_staff: Schema.Boolean,
  acls: Schema.Array(Schema.String),
  traits: Schema.Array(Schema.String),
  email: NullableString,
  email_bounced: Schema.optional(Schema.Boolean),
  phone: Schema.optional(NullableString),
  has_verified_phone: Schema.Boolean,
  bio: NullableString,
  pronouns: NullableString,
  accent_color: NullableInt,
  timezone: Schema.optional(NullableString),
  timezone_privacy_flags: Schema.optional(Schema.Int),
  banner: NullableString,
  banner_color: NullableInt,
  mfa_enabled: Schema.Boolean,
  authenticator_types: Schema.optional(Schema.Array(Schema.Int)),
  verified: Schema.Boolean,
  premium_type: NullableInt,
  premium_since: NullableString,
  premium_until: NullableString,
  premium_will_cancel: Schema.Boolean,
  premium_billing_cycle: NullableString,
  premium_lifetime_sequence: NullableInt,
  premium_grace_ends_at: NullableString,
  premium_discriminator: Schema.Boolean,
  premium_badge_hidden: Schema.Boolean,
  premium_badge_masked: Schema.Boolean,
  premium_badge_timestamp_hidden: Schema.Boolean,
  premium_badge_sequence_hidden: Schema.Boolean,
  premium_purchase_disabled: Schema.Boolean,
  premium_enabled_override: Schema.Boolean,
  premium_perks_disabled: Schema.Boolean,
  password_last_changed_at: NullableString,
  last_voice_activity_sharing_change_at: NullableString,
  required_actions: Schema.Array(Schema.String),
  nsfw_allowed: Schema.Boolean,
  has_dismissed_premium_onboarding: Schema.Boolean,
  has_ever_purchased: Schema.Boolean,
  has_unread_gift_inventory: Schema.Boolean,
  unread_gift_inventory_count: Schema.Int,
  pending_bulk_message_deletion: Schema.NullOr(PendingDeletion),
  terms_agreed_at: NullableString,
  privacy_agreed_at: NullableString
})
export type UserPrivateResponse = typeof UserPrivateResponse.Type

export const UserTagCheckResponse = Schema.Struct({ taken: Schema.Boolean })

/** A row of `users` as the code uses it; bigint columns arrive as strings. */
export interface UserRow {
  readonly id: string
  readonly username: string
  readonly discriminator: string
  readonly global_name: string | null
  readonly email: string | null
  readonly email_verified: boolean
  readonly password_hash: string | null
  readonly date_of_birth: string | null
  readonly avatar: string | null
  readonly banner: string | null
  readonly bio: string | null
  readonly pronouns: string | null
  readonly accent_color: number | null
  readonly flags: string
  readonly acls: ReadonlyArray<string>
  readonly traits: ReadonlyArray<string>
  readonly bot: boolean
  readonly created_at: Date | string
  readonly system?: boolean
  // Columns of later migrations; optional so that a row built from a narrower SELECT stays honest.
  readonly email_bounced?: boolean
  readonly phone?: string | null
  readonly phone_verified_at?: Date | string | null
  readonly password_changed_at?: Date | string | null
  readonly premium_flags?: number
  readonly mention_flags?: number
  readonly timezone?: string | null
  readonly timezone_privacy_flags?: number
  readonly theme?: string
  readonly locale?: string
}

/**
 * The columns of `users` a partial user is made of, each with the schema that
 * decodes it from the row (`flags` is a bigint, so it arrives as decimal text).
 * The actors select exactly these and nothing else of a user: no password hash
 * or email leaves Postgres for them. `mention_flags` is optional for the rows of
 * narrower selects (UserRow) that `toUserPartial` also takes.
 */
export const UserPartialColumns = Schema.Struct({
  id: Id,
  username: Schema.String,
  discriminator: Schema.String,
  global_name: NullableString,
  avatar: NullableString,
  bot: Schema.Boolean,
  flags: Schema.String,
  mention_flags: Schema.optionalKey(Schema.Int),
  system: Schema.optionalKey(Schema.Boolean)
})
export type UserPartialColumns = typeof UserPartialColumns.Type

/**
 * An optional field is left out when absent: the JSON encoding of a present
 * `undefined` under `Schema.optional` is `null`, which clients do not expect there.
 */
export const toUserPartial = (row: UserPartialColumns): UserPartialResponse => ({
  id: row.id,
  username: row.username,
  discriminator: row.discriminator,
  global_name: row.global_name,
  avatar: row.avatar,
  avatar_color: null,
  bot: row.bot,
  // Only the badges: the rest of UserFlags is the account's own (and may not fit a number).
  flags: publicUserFlags(row.flags),
  ...(row.system === true ? { system: true } : {}),
  ...(row.mention_flags ? { mention_flags: row.mention_flags } : {})
})
