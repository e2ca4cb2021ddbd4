import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { unchanged, write } from "../Definitions.ts"

/**
 * An operator's hold on the account (schema/0031_admin_users.sql): a ban, a
 * suspicious-activity disable, a scheduled deletion with its reasons. The
 * actor keeps none of these columns (nothing the user's own views show), so
 * its state stays as it is; the rows are written here so that every change of
 * the user's row goes through the one actor. The caller ends the sessions and
 * answers with the admin view, read after the commit.
 */

const Timestamp = Schema.NullOr(Schema.String)

/** POST /admin/users/temp-ban and /unban: `bannedAt` null lifts the ban; `until` null with a ban is for good. */
export const setBan = write("SetBan", { bannedAt: Timestamp, until: Timestamp }, Schema.Null, (state, { bannedAt, until }, context) =>
  Effect.succeed({
    ...unchanged(state, null),
    persist: Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.asVoid(sql`UPDATE users SET banned_at = ${bannedAt}, temp_banned_until = ${bannedAt === null ? null : until}
                        WHERE id = ${context.userId}`))
  }))

/** POST /admin/users/disable-suspicious: what the user must verify before the account works again (0 is nothing). */
export const setSuspiciousFlags = write("SetSuspiciousFlags", { flags: Schema.Int }, Schema.Null, (state, { flags }, context) =>
  Effect.succeed({
    ...unchanged(state, null),
    persist: Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.asVoid(sql`UPDATE users SET suspicious_activity_flags = ${flags} WHERE id = ${context.userId}`))
  }))

/**
 * POST /admin/users/schedule-deletion and /cancel-deletion: the deletion job
 * (src/account/Deletions.ts) carries out `at`; null cancels the deletion,
 * the user's own included.
 */
export const setOperatorDeletion = write(
  "SetOperatorDeletion",
  { at: Timestamp, reasonCode: Schema.NullOr(Schema.Int), publicReason: Schema.NullOr(Schema.String) },
  Schema.Null,
  (state, { at, reasonCode, publicReason }, context) =>
    Effect.succeed({
      ...unchanged(state, null),
      persist: Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.asVoid(sql`UPDATE users SET deletion_scheduled_at = ${at},
                            deletion_reason_code = ${at === null ? null : reasonCode},
                            deletion_public_reason = ${at === null ? null : publicReason}
                          WHERE id = ${context.userId}`))
    })
)

export const adminSecurityWrites = [setBan, setSuspiciousFlags, setOperatorDeletion] as const
