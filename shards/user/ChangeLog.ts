import { Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import type { Account } from "./AccountView.ts"
import type { Executed, UserContext } from "./Definitions.ts"
import type { UserState } from "./State.ts"

/**
 * The account change log (schema/0033): what an identity field of the account
 * was and became, and who changed it. The actor logs the difference between
 * the account before and after every change it commits, whichever write or
 * flow made it, so a new operation is logged without knowing of the log.
 */

/** One field's change. */
export interface AccountChange {
  readonly field: string
  readonly oldValue: string | null
  readonly newValue: string | null
}

/** The fields logged, under production's names: the tag stands for username and discriminator together. */
const LOGGED: ReadonlyArray<readonly [field: string, value: (account: Account) => string | null]> = [
  ["fluxer_tag", (a) => `${a.username}#${a.discriminator.padStart(4, "0")}`],
  ["global_name", (a) => a.global_name],
  ["email", (a) => a.email],
  ["phone", (a) => a.phone ?? null]
]

/** The logged fields that differ between `before` and `after`. */
export const accountChanges = (before: Account, after: Account): ReadonlyArray<AccountChange> =>
  before === after ? [] : LOGGED.flatMap(([field, value]) => {
    const oldValue = value(before)
    const newValue = value(after)
    return oldValue === newValue ? [] : [{ field, oldValue, newValue }]
  })

/** The statement logging `changes` of `userId` by `actorId`, at `at`. */
export const logChanges = (
  userId: string,
  actorId: string,
  changes: ReadonlyArray<AccountChange>,
  at: Date
): Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> => {
  const rows = changes.map((c) => ({
    user_id: userId,
    field: c.field,
    old_value: c.oldValue,
    new_value: c.newValue,
    actor_id: actorId,
    event_at: at
  }))
  const [first, ...rest] = rows
  if (first === undefined) return Effect.void
  return Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.asVoid(sql`INSERT INTO user_change_log ${sql.insert([first, ...rest])}`))
}

/** `decision` with the log of what it changed of the account added to its statements, in its transaction. */
export const withChangeLog = (before: UserState, decision: Executed, context: UserContext): Executed => {
  const changes = accountChanges(before.account, decision.next.account)
  if (changes.length === 0) return decision
  const log = logChanges(context.userId, context.actorId, changes, new Date(context.now))
  return { ...decision, persist: decision.persist === undefined ? log : Effect.andThen(decision.persist, log) }
}
