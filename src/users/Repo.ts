import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { isoTimestamp } from "../platform/Timestamps.ts"
import { type PendingDeletion, toUserPartial, type UserPrivateResponse, type UserRow } from "../model/Users.ts"


/** PremiumFlags bits the private user shows (bit 0, a premium discriminator, is never set here). */
export const PremiumFlags = {
  badgeHidden: 1 << 1,
  badgeMasked: 1 << 2,
  badgeTimestampHidden: 1 << 3,
  badgeSequenceHidden: 1 << 4,
  enabledOverride: 1 << 7
} as const

/** Columns of `users` a profile update may write. */
export type UserChanges = {
  readonly username?: string
  readonly discriminator?: string
  readonly global_name?: string | null
  readonly password_hash?: string
  readonly password_changed_at?: Date
  readonly avatar?: string | null
  readonly banner?: string | null
  readonly bio?: string | null
  readonly pronouns?: string | null
  readonly accent_color?: number | null
  readonly timezone?: string | null
  readonly timezone_privacy_flags?: number
  readonly premium_flags?: number
  readonly mention_flags?: number
}

export interface NewUser {
  readonly id: string
  readonly username: string
  readonly discriminator: string
  readonly globalName: string | null
  readonly email: string
  readonly passwordHash: string
  readonly dateOfBirth: string
  readonly theme: string
}


/**
 * `authenticatorTypes`: 0 TOTP, 2 WebAuthn (MfaProofs.methods); callers
 * without them show no MFA. `pendingDeletion`: SelfDeletionRepo.pending.
 */
export const toUserPrivate = (
  row: UserRow,
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

export class UsersRepo extends Context.Service<UsersRepo, {
  readonly findById: (id: string) => Effect.Effect<UserRow | undefined>
  readonly findByEmail: (email: string) => Effect.Effect<UserRow | undefined>
  readonly emailTaken: (email: string) => Effect.Effect<boolean>
  readonly takenDiscriminators: (username: string) => Effect.Effect<ReadonlySet<string>>
  /** False when the email or the username#discriminator was taken meanwhile. */
  readonly insert: (user: NewUser) => Effect.Effect<boolean>
  /** Writes the given columns; false when the new username#discriminator was taken meanwhile. */
  readonly update: (id: string, changes: UserChanges) => Effect.Effect<boolean>
}>()("guildhall/UsersRepo") {
  static readonly layer = Layer.effect(
    UsersRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const first = (rows: ReadonlyArray<UserRow>) => rows[0]
      return UsersRepo.of({
        findById: Effect.fn("UsersRepo.findById")((id) =>
          sql<UserRow>`SELECT * FROM users WHERE id = ${id}`.pipe(Effect.map(first), Effect.orDie)),
        findByEmail: Effect.fn("UsersRepo.findByEmail")((email) =>
          sql<UserRow>`SELECT * FROM users WHERE lower(email) = lower(${email})`.pipe(Effect.map(first), Effect.orDie)),
        emailTaken: Effect.fn("UsersRepo.emailTaken")((email) =>
          sql`SELECT 1 FROM users WHERE lower(email) = lower(${email})`.pipe(
            Effect.map((rows) => rows.length > 0),
            Effect.orDie
          )),
        takenDiscriminators: Effect.fn("UsersRepo.takenDiscriminators")((username) =>
          sql<{ discriminator: string }>`SELECT discriminator FROM users WHERE lower(username) = lower(${username})`.pipe(
            Effect.map((rows) => new Set(rows.map((r) => r.discriminator))),
            Effect.orDie
          )),
        insert: Effect.fn("UsersRepo.insert")((user) =>
          sql`
            INSERT INTO users (id, username, discriminator, global_name, email, password_hash, date_of_birth, theme)
            VALUES (${user.id}, ${user.username}, ${user.discriminator}, ${user.globalName}, ${user.email},
                    ${user.passwordHash}, ${user.dateOfBirth}, ${user.theme})
            ON CONFLICT DO NOTHING
            RETURNING id`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie)),
        update: Effect.fn("UsersRepo.update")((id, changes) => {
          // An absent key is no change: it must not become `SET column = NULL`.
          const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined))
          if (Object.keys(set).length === 0) return Effect.succeed(true)
          return sql`UPDATE users SET ${sql.update(set)} WHERE id = ${id}`.pipe(
            Effect.as(true),
            Effect.catchIf((error) => error.reason._tag === "UniqueViolation", () => Effect.succeed(false)),
            Effect.orDie
          )
        })
      })
    })
  )
}
