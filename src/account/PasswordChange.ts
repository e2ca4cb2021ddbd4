import { Context, Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import { requestClient } from "../auth/Client.ts"
import { Passwords } from "../auth/Passwords.ts"
import { passwordProblems } from "../auth/PasswordPolicy.ts"
import { Sessions } from "../auth/Sessions.ts"
import { BadRequest, invalidField, type TooManyRequests, unauthorized, type Unauthorized } from "../model/Errors.ts"
import { type Mail, Mailer } from "../mail/Mailer.ts"
import { newToken, tokenHash } from "../platform/Crypto.ts"
import {
  checkCode,
  CODE_TTL_MS,
  codeError,
  codeHash,
  cooldownLeft,
  inFuture,
  invalidTicket,
  MAX_FAILED_ATTEMPTS,
  MAX_TICKETS_PER_HOUR,
  newCode,
  proofMatches,
  RESEND_COOLDOWN_MS,
  TICKET_TTL_MS,
  ticketCompleted,
  tooManyTickets,
  tooSoon
} from "./Codes.ts"
import { passwordChangedMail, passwordChangeMail } from "./Mails.ts"

interface TicketRow {
  readonly user_id: string
  readonly code_hash: Uint8Array | null
  readonly code_expires_at: Date | string | null
  readonly sent_at: Date | string | null
  readonly proof_hash: Uint8Array | null
  readonly failed_attempts: number
  readonly expires_at: Date | string
  readonly completed_at: Date | string | null
}

export interface PasswordChangeStart {
  readonly ticket: string
  readonly code_expires_at: string
  readonly resend_available_at: string | null
}

const badProof = () => invalidField("verification_proof", "INVALID_PROOF_TOKEN", "Invalid proof")

/**
 * Changing the password while signed in: a code mailed to the account's
 * address (start, resend), its proof (verify), then the new password
 * (complete). Completing ends every session of the account, this one
 * included, and answers a fresh session for the device that made the change:
 * whoever else held a session (or this session's old token) is signed out.
 */
export class PasswordChange extends Context.Service<PasswordChange, {
  readonly start: (userId: string) => Effect.Effect<PasswordChangeStart, BadRequest | TooManyRequests | Unauthorized>
  readonly resend: (userId: string, ticket: string) => Effect.Effect<void, BadRequest | TooManyRequests>
  readonly verify: (userId: string, ticket: string, code: string) => Effect.Effect<{ verification_proof: string }, BadRequest>
  readonly complete: (
    userId: string,
    ticket: string,
    proof: string,
    newPassword: string
  ) => Effect.Effect<{ token: string; auth_session_id_hash: string }, BadRequest, HttpServerRequest.HttpServerRequest>
}>()("guildhall/PasswordChange") {
  static readonly layer = Layer.effect(
    PasswordChange,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const mailer = yield* Mailer
      const passwords = yield* Passwords
      const sessions = yield* Sessions

      // Mail goes out best effort: a lost mail is logged, and the user can ask again.
      const deliver = (mail: Mail) =>
        mailer.send(mail).pipe(Effect.catch((error) => Effect.logWarning(`email "${mail.subject}" not delivered`, error.message)))

      const emailOf = (userId: string) =>
        Effect.gen(function*() {
          const rows = yield* sql<{ email: string | null }>`SELECT email FROM users WHERE id = ${userId}`.pipe(Effect.orDie)
          const row = rows[0]
          if (row === undefined) return yield* unauthorized()
          if (row.email === null) return yield* invalidField("email", "EMAIL_IS_REQUIRED", "The account has no email address for the code")
          return row.email
        })

      const open = (userId: string, ticket: string) =>
        Effect.gen(function*() {
          const hash = tokenHash(ticket)
          const rows = yield* sql<TicketRow>`SELECT * FROM password_change_tickets WHERE ticket_hash = ${hash}`.pipe(Effect.orDie)
          const row = rows[0]
          if (row === undefined || String(row.user_id) !== userId) return yield* invalidTicket()
          if (row.completed_at !== null) return yield* ticketCompleted()
          if (new Date(row.expires_at).getTime() <= Date.now() || row.failed_attempts >= MAX_FAILED_ATTEMPTS) {
            return yield* invalidTicket()
          }
          return { hash, row }
        })

      const mailCode = (hash: Buffer, email: string) =>
        Effect.gen(function*() {
          const now = Date.now()
          const code = newCode()
          const expiresAt = inFuture(CODE_TTL_MS, now)
          yield* sql`UPDATE password_change_tickets
                     SET code_hash = ${codeHash(code)}, code_expires_at = ${expiresAt}, sent_at = ${new Date(now)}
                     WHERE ticket_hash = ${hash}`.pipe(Effect.orDie)
          yield* deliver(passwordChangeMail(email, code, CODE_TTL_MS))
          return { codeExpiresAt: expiresAt, resendAt: inFuture(RESEND_COOLDOWN_MS, now) }
        })

      return PasswordChange.of({
        start: (userId) =>
          Effect.gen(function*() {
            const email = yield* emailOf(userId)
            const hourAgo = new Date(Date.now() - 3_600_000)
            const recent = yield* sql<{ n: number }>`
              SELECT count(*)::int AS n FROM password_change_tickets WHERE user_id = ${userId} AND created_at > ${hourAgo}`.pipe(
              Effect.orDie
            )
            if ((recent[0]?.n ?? 0) >= MAX_TICKETS_PER_HOUR) return yield* tooManyTickets()
            const ticket = newToken()
            const hash = tokenHash(ticket)
            yield* sql.withTransaction(Effect.gen(function*() {
              // A new ticket replaces the user's earlier ones.
              yield* sql`UPDATE password_change_tickets SET expires_at = now()
                         WHERE user_id = ${userId} AND completed_at IS NULL AND expires_at > now()`
              yield* sql`INSERT INTO password_change_tickets (ticket_hash, user_id, expires_at)
                         VALUES (${hash}, ${userId}, ${inFuture(TICKET_TTL_MS)})`
            })).pipe(Effect.orDie)
            const sent = yield* mailCode(hash, email)
            return {
              ticket,
              code_expires_at: sent.codeExpiresAt.toISOString(),
              resend_available_at: sent.resendAt.toISOString()
            }
          }),

        resend: (userId, ticket) =>
          Effect.gen(function*() {
            const { hash, row } = yield* open(userId, ticket)
            if (row.proof_hash !== null) {
              return yield* invalidField("ticket", "TICKET_ALREADY_COMPLETED", "The code of this ticket was already entered")
            }
            const wait = cooldownLeft(row.sent_at)
            if (wait > 0) return yield* tooSoon(wait)
            yield* mailCode(hash, yield* Effect.orDie(emailOf(userId)))
          }),

        verify: (userId, ticket, code) =>
          Effect.gen(function*() {
            const { hash, row } = yield* open(userId, ticket)
            const check = checkCode({ hash: row.code_hash, expiresAt: row.code_expires_at }, code)
            if (check !== "ok") {
              if (check === "wrong") {
                yield* sql`UPDATE password_change_tickets SET failed_attempts = failed_attempts + 1
                           WHERE ticket_hash = ${hash}`.pipe(Effect.orDie)
              }
              return yield* codeError(check)
            }
            const proof = newToken()
            yield* sql`UPDATE password_change_tickets SET proof_hash = ${tokenHash(proof)}, code_hash = NULL
                       WHERE ticket_hash = ${hash}`.pipe(Effect.orDie)
            return { verification_proof: proof }
          }),

        complete: (userId, ticket, proof, newPassword) =>
          Effect.gen(function*() {
            const problems = passwordProblems(newPassword, "new_password")
            if (problems.length > 0) return yield* new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors: problems })
            const { hash, row } = yield* open(userId, ticket)
            if (!proofMatches(row.proof_hash, proof)) return yield* badProof()
            const passwordHash = yield* passwords.hash(newPassword)
            const changed = yield* sql.withTransaction(Effect.gen(function*() {
              // Using the ticket up is the guard against two concurrent completions.
              const claimed = yield* sql`UPDATE password_change_tickets SET completed_at = now()
                                         WHERE ticket_hash = ${hash} AND completed_at IS NULL RETURNING 1`
              if (claimed.length === 0) return false
              yield* sql`UPDATE users SET password_hash = ${passwordHash}, password_changed_at = now() WHERE id = ${userId}`
              return true
            })).pipe(Effect.orDie)
            if (!changed) return yield* ticketCompleted()
            // Every session ends (other processes drop theirs from cache within Sessions.cacheMillis);
            // this device carries on with a new one.
            yield* sessions.revokeAllOf(userId)
            const token = yield* sessions.create(userId, yield* requestClient)
            const email = yield* Effect.option(emailOf(userId))
            if (email._tag === "Some") yield* deliver(passwordChangedMail(email.value))
            return { token, auth_session_id_hash: tokenHash(token).toString("base64url") }
          })
      })
    })
  )
}
