/**
 * UserFlags (users.flags, a bigint): the account's standing, badges and
 * internal markers, as the production service numbers them. Operators add and
 * remove them by name or by value (POST /admin/users/update-flags).
 */
export const UserFlags = {
  STAFF: 1n << 0n,
  CTP_MEMBER: 1n << 1n,
  PARTNER: 1n << 2n,
  BUG_HUNTER: 1n << 3n,
  HIGH_GLOBAL_RATE_LIMIT: 1n << 33n,
  DELETED: 1n << 34n,
  DISABLED_SUSPICIOUS_ACTIVITY: 1n << 35n,
  SELF_DELETED: 1n << 36n,
  PREMIUM_DISCRIMINATOR: 1n << 37n,
  DISABLED: 1n << 38n,
  HAS_SESSION_STARTED: 1n << 39n,
  PREMIUM_BADGE_HIDDEN: 1n << 40n,
  PREMIUM_BADGE_MASKED: 1n << 41n,
  PREMIUM_BADGE_TIMESTAMP_HIDDEN: 1n << 42n,
  PREMIUM_BADGE_SEQUENCE_HIDDEN: 1n << 43n,
  PREMIUM_PERKS_SANITIZED: 1n << 44n,
  PREMIUM_PURCHASE_DISABLED: 1n << 45n,
  PREMIUM_ENABLED_OVERRIDE: 1n << 46n,
  RATE_LIMIT_BYPASS: 1n << 47n,
  REPORT_BANNED: 1n << 48n,
  VERIFIED_NOT_UNDERAGE: 1n << 49n,
  PENDING_MANUAL_VERIFICATION: 1n << 50n,
  HAS_DISMISSED_PREMIUM_ONBOARDING: 1n << 51n,
  USED_MOBILE_CLIENT: 1n << 52n,
  APP_STORE_REVIEWER: 1n << 53n,
  HAS_DM_HISTORY_BACKFILLED: 1n << 54n
} as const

/** PublicUserFlags: the badges others see on a partial user; the rest stays on the account. */
export const PUBLIC_USER_FLAGS = UserFlags.STAFF | UserFlags.CTP_MEMBER | UserFlags.PARTNER | UserFlags.BUG_HUNTER

const byName: ReadonlyMap<string, bigint> = new Map(Object.entries(UserFlags))
const values: ReadonlySet<bigint> = new Set(Object.values(UserFlags))

/** A flag named (`"STAFF"`) or given by value (`"1"`, `1`), or undefined when it is none of UserFlags. */
export const userFlag = (flag: string | number): bigint | undefined => {
  if (typeof flag === "string") {
    const named = byName.get(flag.toUpperCase())
    if (named !== undefined) return named
    if (!/^[0-9]{1,20}$/.test(flag)) return undefined
  } else if (!Number.isSafeInteger(flag) || flag < 0) {
    return undefined
  }
  const value = BigInt(flag)
  return values.has(value) ? value : undefined
}

/** `flags` (decimal text) with `add` set and `remove` cleared, as decimal text. */
export const withUserFlags = (flags: string, add: ReadonlyArray<string>, remove: ReadonlyArray<string>): string => {
  let next = BigInt(flags)
  for (const flag of add) next |= BigInt(flag)
  for (const flag of remove) next &= ~BigInt(flag)
  return next.toString()
}

/** The public part of `flags` (decimal text): a number, as partial users show it. */
export const publicUserFlags = (flags: string): number => Number(BigInt(flags) & PUBLIC_USER_FLAGS)

/** SuspiciousActivityFlags (part B): the verifications a user must pass before the account works again. */
export const SuspiciousActivityFlags = {
  REQUIRE_VERIFIED_EMAIL: 1 << 0,
  REQUIRE_REVERIFIED_EMAIL: 1 << 1,
  REQUIRE_VERIFIED_PHONE: 1 << 2,
  REQUIRE_REVERIFIED_PHONE: 1 << 3,
  REQUIRE_VERIFIED_EMAIL_OR_VERIFIED_PHONE: 1 << 4,
  REQUIRE_REVERIFIED_EMAIL_OR_VERIFIED_PHONE: 1 << 5,
  REQUIRE_VERIFIED_EMAIL_OR_REVERIFIED_PHONE: 1 << 6,
  REQUIRE_REVERIFIED_EMAIL_OR_REVERIFIED_PHONE: 1 << 7
} as const

/** Every SuspiciousActivityFlags bit: a value with any other bit is refused. */
export const ALL_SUSPICIOUS_ACTIVITY_FLAGS = Object.values(SuspiciousActivityFlags).reduce((all, bit) => all | bit, 0)
