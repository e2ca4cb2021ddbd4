import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { ReverseDns } from "../../platform/ReverseDns.ts"
import { isoTimestampOrNull } from "../../platform/Timestamps.ts"
import { unknown } from "../../model/Errors.ts"
import { UserFlags } from "../../model/UserFlags.ts"
import type { NotFound } from "../../model/Errors.ts"

/** UserAdminResponseSchema: a user as operators see one (part B; the production shape). */
export const UserAdminResponse = Schema.Struct({
  id: Schema.String,
  username: Schema.String,
  discriminator: Schema.Int,
  global_name: Schema.NullOr(Schema.String),
  bot: Schema.Boolean,
  system: Schema.Boolean,
  flags: Schema.String,
  avatar: Schema.NullOr(Schema.String),
  banner: Schema.NullOr(Schema.String),
  bio: Schema.NullOr(Schema.String),
  pronouns: Schema.NullOr(Schema.String),
  accent_color: Schema.NullOr(Schema.Int),
  email: Schema.NullOr(Schema.String),
  email_verified: Schema.Boolean,
  email_bounced: Schema.Boolean,
  phone: Schema.NullOr(Schema.String),
  date_of_birth: Schema.NullOr(Schema.String),
  locale: Schema.NullOr(Schema.String),
  premium_type: Schema.NullOr(Schema.Int),
  premium_since: Schema.NullOr(Schema.String),
  premium_until: Schema.NullOr(Schema.String),
  suspicious_activity_flags: Schema.Int,
  temp_banned_until: Schema.NullOr(Schema.String),
  pending_deletion_at: Schema.NullOr(Schema.String),
  pending_bulk_message_deletion_at: Schema.NullOr(Schema.String),
  deletion_reason_code: Schema.NullOr(Schema.Int),
  deletion_public_reason: Schema.NullOr(Schema.String),
  acls: Schema.Array(Schema.String),
  traits: Schema.Array(Schema.String),
  has_totp: Schema.Boolean,
  authenticator_types: Schema.Array(Schema.Int),
  last_active_at: Schema.NullOr(Schema.String),
  last_active_ip: Schema.NullOr(Schema.String),
  last_active_ip_reverse: Schema.NullOr(Schema.String),
  last_active_location: Schema.NullOr(Schema.String)
})
export type UserAdminResponse = typeof UserAdminResponse.Type

/** `{ user }`: what most admin user changes answer, the user as it now stands. */
export const AdminUserResult = Schema.Struct({ user: UserAdminResponse })

interface Row {
  readonly id: string
  readonly username: string
  readonly discriminator: string
  readonly global_name: string | null
  readonly bot: boolean
  readonly system: boolean
  readonly flags: string
  readonly avatar: string | null
  readonly banner: string | null
  readonly bio: string | null
  readonly pronouns: string | null
  readonly accent_color: number | null
  readonly email: string | null
  readonly email_verified: boolean
  readonly email_bounced: boolean
  readonly phone: string | null
  readonly date_of_birth: string | null
  readonly locale: string | null
  readonly suspicious_activity_flags: number
  readonly banned_at: Date | null
  readonly disabled_at: Date | null
  readonly temp_banned_until: Date | null
  readonly deletion_scheduled_at: Date | null
  readonly deletion_reason_code: number | null
  readonly deletion_public_reason: string | null
  readonly acls: ReadonlyArray<string>
  readonly traits: ReadonlyArray<string>
  readonly has_totp: boolean
  readonly has_webauthn: boolean
  readonly bulk_deletion_at: Date | null
  readonly last_active_at: Date | null
  readonly last_active_ip: string | null
}

/**
 * The stored flags with the bits the production service keeps in them for an
 * account held out (disabled, banned, disabled for suspicious activity): here
 * those states have columns of their own, and the flags show them as its
 * admin clients expect to read them.
 */
const shownFlags = (row: Row, now: number): string => {
  const banned = row.banned_at !== null && (row.temp_banned_until === null || row.temp_banned_until.getTime() > now)
  let flags = BigInt(row.flags)
  if (banned || row.disabled_at !== null) flags |= UserFlags.DISABLED
  if (row.suspicious_activity_flags !== 0) flags |= UserFlags.DISABLED_SUSPICIOUS_ACTIVITY
  return flags.toString()
}

const toView = (row: Row, now: number): UserAdminResponse => ({
  id: row.id,
  username: row.username,
  discriminator: Number(row.discriminator),
  global_name: row.global_name,
  bot: row.bot,
  system: row.system,
  flags: shownFlags(row, now),
  avatar: row.avatar,
  banner: row.banner,
  bio: row.bio,
  pronouns: row.pronouns,
  accent_color: row.accent_color,
  email: row.email,
  email_verified: row.email_verified,
  email_bounced: row.email_bounced,
  phone: row.phone,
  date_of_birth: row.date_of_birth,
  locale: row.locale,
  // Nobody holds premium on this server (see the account's premium fields).
  premium_type: null,
  premium_since: null,
  premium_until: null,
  suspicious_activity_flags: row.suspicious_activity_flags,
  temp_banned_until: isoTimestampOrNull(row.temp_banned_until),
  pending_deletion_at: isoTimestampOrNull(row.deletion_scheduled_at),
  pending_bulk_message_deletion_at: isoTimestampOrNull(row.bulk_deletion_at),
  deletion_reason_code: row.deletion_reason_code,
  deletion_public_reason: row.deletion_public_reason,
  acls: row.acls,
  traits: row.traits,
  has_totp: row.has_totp,
  authenticator_types: [...(row.has_totp ? [0] : []), ...(row.has_webauthn ? [2] : [])],
  last_active_at: isoTimestampOrNull(row.last_active_at),
  last_active_ip: row.last_active_ip,
  last_active_ip_reverse: null,
  last_active_location: null
})

/** Views read at once with their last address's host name looked up. */
const LOOKUPS_AT_ONCE = 8

/**
 * The admin view of users, read from Postgres: every change an operator makes
 * goes through the user's actor, which commits before it answers, so a read
 * after it sees the change.
 */
export class AdminUserViews extends Context.Service<AdminUserViews, {
  /** Those of `ids` that exist, in the order asked. */
  readonly byIds: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<UserAdminResponse>>
  /** One user, or UNKNOWN_USER. */
  readonly byId: (id: string) => Effect.Effect<UserAdminResponse, NotFound>
}>()("guildhall/AdminUserViews") {
  static readonly layer = Layer.effect(
    AdminUserViews,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const reverseDns = yield* ReverseDns

      const withHostName = (view: UserAdminResponse) =>
        view.last_active_ip === null
          ? Effect.succeed(view)
          : Effect.map(reverseDns.lookup(view.last_active_ip), (name) => ({ ...view, last_active_ip_reverse: name }))

      const byIds = Effect.fn("AdminUserViews.byIds")(function*(ids: ReadonlyArray<string>) {
        if (ids.length === 0) return []
        const rows = yield* sql<Row>`
          SELECT u.id::text AS id, u.username, u.discriminator, u.global_name, u.bot, u.system, u.flags::text AS flags,
                 u.avatar, u.banner, u.bio, u.pronouns, u.accent_color, u.email, u.email_verified, u.email_bounced,
                 u.phone, u.date_of_birth::text AS date_of_birth, u.locale, u.suspicious_activity_flags, u.banned_at, u.disabled_at,
                 u.temp_banned_until, u.deletion_scheduled_at, u.deletion_reason_code, u.deletion_public_reason,
                 u.acls, u.traits,
                 EXISTS (SELECT 1 FROM user_mfa m WHERE m.user_id = u.id AND m.totp_secret IS NOT NULL) AS has_totp,
                 EXISTS (SELECT 1 FROM webauthn_credentials w WHERE w.user_id = u.id) AS has_webauthn,
                 (SELECT j.scheduled_at FROM message_deletion_jobs j WHERE j.user_id = u.id) AS bulk_deletion_at,
                 s.last_used_at AS last_active_at, s.client_ip AS last_active_ip
          FROM users u
          LEFT JOIN LATERAL (
            SELECT last_used_at, client_ip FROM sessions WHERE user_id = u.id ORDER BY last_used_at DESC LIMIT 1
          ) s ON true
          WHERE u.id IN ${sql.in(ids)}`
        const now = Date.now()
        const byId = new Map(rows.map((row) => [row.id, toView(row, now)]))
        return yield* Effect.forEach(ids.flatMap((id) => byId.get(id) ?? []), withHostName, { concurrency: LOOKUPS_AT_ONCE })
      }, Effect.orDie)

      const byId = (id: string) =>
        Effect.flatMap(byIds([id]), (found) => (found[0] === undefined ? unknown("USER") : Effect.succeed(found[0])))

      return AdminUserViews.of({ byIds, byId })
    })
  )
}
