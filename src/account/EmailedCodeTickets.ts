import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { BadRequest, TooManyRequests } from "../model/Errors.ts"
import { type Mail, Mailer } from "../mail/Mailer.ts"
import { newToken, tokenHash } from "../platform/Crypto.ts"
import {
  checkCode,
  codeError,
  inFuture,
  invalidTicket,
  MAX_FAILED_ATTEMPTS,
  MAX_TICKETS_PER_HOUR,
  TICKET_TTL_MS,
  ticketCompleted,
  tooManyTickets
} from "./Codes.ts"

/** The columns every ticket table of an emailed-code flow has, whatever else it holds. */
export interface TicketState {
  readonly user_id: string
  readonly failed_attempts: number
  readonly expires_at: Date | string
  readonly completed_at: Date | string | null
}

/** The flows whose tickets this serves, by their tables. */
export type TicketTable = "email_change_tickets" | "password_change_tickets"

/** A stored code and its expiry, as `checkCode` reads them. */
export interface StoredCode {
  readonly hash: Uint8Array | null
  readonly expiresAt: Date | string | null
}

/**
 * The ticket flow the email change and the password change share: a ticket is
 * opened (at most MAX_TICKETS_PER_HOUR an hour, replacing the user's earlier
 * ones), codes are mailed for it, a wrong code counts against it (it dies after
 * MAX_FAILED_ATTEMPTS), and completing it uses it up in the transaction that
 * makes the change, so two concurrent completions cannot both succeed.
 *
 * `Row` is the flow's table row; `table` is a fixed name, never user input.
 */
export const makeEmailedCodeTickets = <Row extends TicketState>(table: TicketTable) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const mailer = yield* Mailer
    const tickets = sql(table)

    /**
     * A new ticket of the user: `insert` writes its row with the flow's own
     * columns, given the ticket's hash and expiry.
     */
    const create = Effect.fn("EmailedCodeTickets.create")(function*(
      userId: string,
      insert: (ticketHash: Buffer, expiresAt: Date) => Effect.Effect<unknown, SqlError>
    ): Effect.fn.Return<string, TooManyRequests> {
      const hourAgo = new Date(Date.now() - 3_600_000)
      const recent = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM ${tickets} WHERE user_id = ${userId} AND created_at > ${hourAgo}`.pipe(Effect.orDie)
      if ((recent[0]?.n ?? 0) >= MAX_TICKETS_PER_HOUR) return yield* tooManyTickets()
      const ticket = newToken()
      yield* sql.withTransaction(Effect.gen(function*() {
        // A new ticket replaces the user's earlier ones.
        yield* sql`UPDATE ${tickets} SET expires_at = now()
                   WHERE user_id = ${userId} AND completed_at IS NULL AND expires_at > now()`
        yield* insert(tokenHash(ticket), inFuture(TICKET_TTL_MS))
      })).pipe(Effect.orDie)
      return ticket
    })

    /** The user's live ticket, or the reason it cannot be used. */
    const open = Effect.fn("EmailedCodeTickets.open")(function*(
      userId: string,
      ticket: string
    ): Effect.fn.Return<{ readonly hash: Buffer; readonly row: Row }, BadRequest> {
      const hash = tokenHash(ticket)
      const rows = yield* sql<Row>`SELECT * FROM ${tickets} WHERE ticket_hash = ${hash}`.pipe(Effect.orDie)
      const row = rows[0]
      if (row === undefined || String(row.user_id) !== userId) return yield* invalidTicket()
      if (row.completed_at !== null) return yield* ticketCompleted()
      if (new Date(row.expires_at).getTime() <= Date.now() || row.failed_attempts >= MAX_FAILED_ATTEMPTS) {
        return yield* invalidTicket()
      }
      return { hash, row }
    })

    /** Checks a typed code against the ticket's stored one; a wrong code counts against the ticket. */
    const checkTypedCode = Effect.fn("EmailedCodeTickets.checkTypedCode")(function*(
      hash: Buffer,
      stored: StoredCode,
      code: string
    ): Effect.fn.Return<void, BadRequest> {
      const check = checkCode(stored, code)
      if (check === "ok") return
      if (check === "wrong") {
        yield* sql`UPDATE ${tickets} SET failed_attempts = failed_attempts + 1 WHERE ticket_hash = ${hash}`.pipe(Effect.orDie)
      }
      return yield* codeError(check)
    })

    /**
     * Uses the ticket up and makes the change (`write`) in one transaction: the
     * claim is the guard against two concurrent completions. A failed `write`
     * leaves the ticket as it was.
     */
    const complete = Effect.fn("EmailedCodeTickets.complete")(function*(
      hash: Buffer,
      write: Effect.Effect<void, BadRequest>
    ): Effect.fn.Return<void, BadRequest> {
      yield* sql.withTransaction(Effect.gen(function*() {
        const claimed = yield* sql`UPDATE ${tickets} SET completed_at = now()
                                   WHERE ticket_hash = ${hash} AND completed_at IS NULL RETURNING 1`.pipe(Effect.orDie)
        if (claimed.length === 0) return yield* ticketCompleted()
        yield* write
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    })

    // Mail goes out best effort: a lost mail is logged, and the user can ask again.
    const deliver = (mail: Mail) =>
      mailer.send(mail).pipe(Effect.catch((error) => Effect.logWarning(`email "${mail.subject}" not delivered`, error.message)))

    return { create, open, checkTypedCode, complete, deliver }
  })
