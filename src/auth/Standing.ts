import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { Forbidden } from "../model/Errors.ts"

export interface StandingRow {
  readonly banned_at: Date | null
  readonly temp_banned_until: Date | string | null
  readonly suspicious_activity_flags: number
  readonly deletion_reason_code: number | null
  readonly deletion_scheduled_at: Date | null
}

/** Why an operator keeps the user out, if one does (schema/0031_admin_users.sql). */
export const refusal = (row: StandingRow, now: number): Forbidden | undefined => {
  // An operator's deletion is a permanent suspension until it is cancelled (the production service marks both alike).
  if (row.deletion_reason_code !== null && row.deletion_scheduled_at !== null) return suspendedPermanently()
  if (row.banned_at !== null) {
    if (row.temp_banned_until === null) return suspendedPermanently()
    // A temporary ban lapses by itself: nothing needs to clear it.
    if (new Date(row.temp_banned_until).getTime() > now) {
      return new Forbidden({ code: "ACCOUNT_SUSPENDED_TEMPORARILY", message: "Your account has been temporarily suspended" })
    }
  }
  if (row.suspicious_activity_flags !== 0) {
    return new Forbidden({
      code: "ACCOUNT_SUSPICIOUS_ACTIVITY",
      message: "Your account has been flagged for suspicious activity. Please verify your identity to continue.",
      data: { suspicious_activity_flags: row.suspicious_activity_flags }
    })
  }
  return undefined
}

const suspendedPermanently = () =>
  new Forbidden({ code: "ACCOUNT_SUSPENDED_PERMANENTLY", message: "Your account has been permanently suspended" })

/**
 * Fails when an operator keeps the user out (a ban, a suspicious-activity
 * disable, a scheduled deletion). Every way in asks it before a session is
 * made (LoginCompletion.ts) and, where MFA would be asked for, before that
 * (SignIn.ts); the sessions the user had were ended when the operator acted.
 */
export const checkStanding = (sql: SqlClient.SqlClient, userId: string): Effect.Effect<void, Forbidden> =>
  sql<StandingRow>`
    SELECT banned_at, temp_banned_until, suspicious_activity_flags, deletion_reason_code, deletion_scheduled_at
    FROM users WHERE id = ${userId}`.pipe(
    Effect.orDie,
    Effect.flatMap((rows) => {
      const refused = rows[0] === undefined ? undefined : refusal(rows[0], Date.now())
      return refused === undefined ? Effect.void : Effect.fail(refused)
    })
  )
