import { Schema } from "effect"
import { SudoFields } from "../auth/Sudo.ts"
import { BoundedText } from "../model/Common.ts"
import { GuildId } from "../model/Ids.ts"

/** Checked by the handler with registration's rule (src/auth/Usernames.ts); this only caps the input. */
export const Username = Schema.String.check(Schema.isMaxLength(64))

/**
 * DiscriminatorType is a string of 1 to 4 digits; the reference platform's own
 * clients also send it as a number, so both are read.
 */
export const Discriminator = Schema.Union([
  Schema.String.check(Schema.isPattern(/^\d{1,4}$/, { message: "DISCRIMINATOR_INVALID_FORMAT: A discriminator is 1 to 4 digits" })),
  Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 9999 }, { message: "DISCRIMINATOR_OUT_OF_RANGE: A discriminator is 0 to 9999" }))
])

const Email = Schema.String.check(
  Schema.isMaxLength(254, { message: "EMAIL_LENGTH_INVALID: Must be at most 254 in length" }),
  Schema.isPattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: "INVALID_EMAIL_FORMAT: Not a valid email address" })
)

/** A data URI or bare base64; the body limit (1 MiB) bounds it first, Images.ts checks the bytes. */
const Image = Schema.NullOr(Schema.String.check(Schema.isMaxLength(1_048_576)))

const Color = Schema.Int.check(
  Schema.isGreaterThanOrEqualTo(0, { message: "COLOR_VALUE_TOO_LOW: A color is at least 0" }),
  Schema.isLessThanOrEqualTo(0xffffff, { message: "COLOR_VALUE_TOO_HIGH: A color is at most 16777215 (0xFFFFFF)" })
)

/** UserUpdateWithVerificationRequest. Empty text (bio, pronouns, global_name) clears the field like null. */
export const UserUpdateRequest = Schema.Struct({
  username: Schema.optionalKey(Username),
  discriminator: Schema.optionalKey(Discriminator),
  global_name: Schema.optional(Schema.NullOr(BoundedText(0, 32, "GLOBAL_NAME_LENGTH_INVALID"))),
  email: Schema.optionalKey(Email),
  /** Length and commonness are checked by the handler (PASSWORD_LENGTH_INVALID, PASSWORD_IS_TOO_COMMON). */
  new_password: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(1024))),
  avatar: Schema.optional(Image),
  banner: Schema.optional(Image),
  bio: Schema.optional(Schema.NullOr(BoundedText(0, 320))),
  pronouns: Schema.optional(Schema.NullOr(BoundedText(0, 40))),
  accent_color: Schema.optional(Schema.NullOr(Color)),
  timezone: Schema.optional(Schema.NullOr(BoundedText(0, 128))),
  /** ProfileFieldPrivacyFlags: 1 everyone, 2 friends, 4 mutual guilds. */
  timezone_privacy_flags: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 7 }))),
  premium_badge_hidden: Schema.optionalKey(Schema.Boolean),
  premium_badge_masked: Schema.optionalKey(Schema.Boolean),
  premium_badge_timestamp_hidden: Schema.optionalKey(Schema.Boolean),
  premium_badge_sequence_hidden: Schema.optionalKey(Schema.Boolean),
  premium_enabled_override: Schema.optionalKey(Schema.Boolean),
  has_dismissed_premium_onboarding: Schema.optionalKey(Schema.Boolean),
  has_unread_gift_inventory: Schema.optionalKey(Schema.Boolean),
  mention_flags: Schema.optionalKey(Schema.Literals([0, 1, 2])),
  email_token: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(256))),
  ...SudoFields
})
export type UserUpdateRequest = typeof UserUpdateRequest.Type

/** QueryBooleanType: `true`/`false` (and `1`/`0`). */
const QueryBoolean = Schema.Literals(["true", "false", "1", "0"])
export const queryFlag = (value: typeof QueryBoolean.Type | undefined): boolean => value === "true" || value === "1"

export const UserProfileQuery = {
  guild_id: Schema.optional(GuildId),
  with_mutual_friends: Schema.optional(QueryBoolean),
  with_mutual_guilds: Schema.optional(QueryBoolean)
}

export const UserTagCheckQuery = { username: Username, discriminator: Discriminator }
