import { isoTimestamp } from "../../src/platform/Timestamps.ts"
import { type PendingDeletion, toUserPartial, type UserPrivateResponse, type UserRow } from "../../src/model/Users.ts"

// The private user (GET /users/@me, READY's `user`, USER_UPDATE), made from the account's row.

/** A row of `users` without its secrets: what the user actor keeps of its account. */
export type Account = Omit<UserRow, "password_hash">

/** PremiumFlags bits the private user shows (bit 0, a premium discriminator, is never set here). */
export const PremiumFlags = {
  badgeHidden: 1 << 1,
  badgeMasked: 1 << 2,
  badgeTimestampHidden: 1 << 3,
  badgeSequenceHidden: 1 << 4,
  enabledOverride: 1 << 7
} as const

/**
 * `authenticatorTypes`: 0 TOTP, 2 WebAuthn (MfaProofs.methods); callers
 * without them show no MFA. `pendingDeletion`: the user's message self-deletion job (shards/user/Repo.ts).
 */
export const toUserPrivate = (
  row: Account,
  authenticatorTypes: ReadonlyArray<number> = [],
  pendingDeletion: PendingDeletion | null = null
): UserPrivateResponse => {
  const premium = (flag: number) => ((row.premium_flags ?? 0) & flag) !== 0
  return {
    ...toUserPartial(row),
    is_staff: row.acls.length > 0,
    acls: row.acls,
    traits: row.traits,
    email: row.email,
    email_bounced: row.email_bounced ?? false,
    phone: row.phone ?? null,
    has_verified_phone: row.phone_verified_at !== undefined && row.phone_verified_at !== null,
    bio: row.bio,
    pronouns: row.pronouns,
    accent_color: row.accent_color,
    timezone: row.timezone ?? null,
    timezone_privacy_flags: row.timezone_privacy_flags ?? 0,
    banner: row.banner,
    banner_color: null,
    mfa_enabled: authenticatorTypes.length > 0,
    authenticator_types: authenticatorTypes,
    verified: row.email_verified,
    premium_type: null,
    premium_since: null,
    premium_until: null,
    premium_will_cancel: false,
    premium_billing_cycle: null,
    premium_lifetime_sequence: null,
    premium_grace_ends_at: null,
    premium_discriminator: false,
    premium_badge_hidden: premium(PremiumFlags.badgeHidden),
    premium_badge_masked: premium(PremiumFlags.badgeMasked),
    premium_badge_timestamp_hidden: premium(PremiumFlags.badgeTimestampHidden),
    premium_badge_sequence_hidden: premium(PremiumFlags.badgeSequenceHidden),
    premium_purchase_disabled: false,
    premium_enabled_override: premium(PremiumFlags.enabledOverride),
    premium_perks_disabled: false,
    password_last_changed_at: row.password_changed_at ? isoTimestamp(row.password_changed_at) : null,
    last_voice_activity_sharing_change_at: null,
    required_actions: [],
    nsfw_allowed: false,
    has_dismissed_premium_onboarding: false,
    has_ever_purchased: false,
    has_unread_gift_inventory: false,
    unread_gift_inventory_count: 0,
    pending_bulk_message_deletion: pendingDeletion,
    terms_agreed_at: isoTimestamp(row.created_at),
    privacy_agreed_at: isoTimestamp(row.created_at)
  }
}

