import { Context, Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import { requestClient } from "../auth/Client.ts"
import { Passwords } from "../auth/Passwords.ts"
import { passwordProblems } from "../auth/PasswordPolicy.ts"
import { Sessions } from "../auth/Sessions.ts"
import { UserActors } from "../guilds/UserActors.ts"
import { BadRequest, invalidField, type TooManyRequests, unauthorized, type Unauthorized, type Unavailable } from "../model/Errors.ts"
import { newToken, tokenHash } from "../platform/Crypto.ts"
import { refreshAccount } from "../users/AccountRefresh.ts"
import { CODE_TTL_MS, codeHash, cooldownLeft, inFuture, newCode, proofMatches, RESEND_COOLDOWN_MS, tooSoon } from "./Codes.ts"
import { makeEmailedCodeTickets } from "./EmailedCodeTickets.ts"
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
  ) => Effect.Effect<{ token: string; auth_session_id_hash: string }, BadRequest | Unavailable, HttpServerRequest.HttpServerRequest>
}>()("guildhall/PasswordChange") {
  static readonly layer = Layer.effect(
    PasswordChange,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const passwords = yield* Passwords
      const sessions = yield* Sessions
      const userActors = yield* UserActors

      const tickets = yield* makeEmailedCodeTickets<TicketRow>("password_change_tickets")

      const emailOf = (userId: string) =>
        Effect.gen(function*() {
          const rows = yield* sql<{ email: string | null }>`SELECT email FROM users WHERE id = ${userId}`.pipe(Effect.orDie)
          const row = rows[0]
          if (row === undefined) return yield* unauthorized()
          if (row.email === null) return yield* invalidField("email", "EMAIL_IS_REQUIRED", "The account has no email address for the code")
          return row.email
        })

      const mailCode = (hash: Buffer, email: string) =>
        Effect.gen(function*() {
          const now = Date.now()
          const code = newCode()
          const expiresAt = inFuture(CODE_TTL_MS, now)
          yield* sql`UPDATE password_change_tickets
                     SET code_hash = ${codeHash(code)}, code_expires_at = ${expiresAt}, sent_at = ${new Date(now)}
                     WHERE ticket_hash = ${hash}`.pipe(Effect.orDie)
          yield* tickets.deliver(passwordChangeMail(email, code, CODE_TTL_MS))
          return { codeExpiresAt: expiresAt, resendAt: inFuture(RESEND_COOLDOWN_MS, now) }
        })

      return PasswordChange.of({
        start: Effect.fn("PasswordChange.start")(function*(userId) {
          const email = yield* emailOf(userId)
          const ticket = yield* tickets.create(userId, (hash, expiresAt) =>
            sql`INSERT INTO password_change_tickets (ticket_hash, user_id, expires_at) VALUES (${hash}, ${userId}, ${expiresAt})`)
          const sent = yield* mailCode(tokenHash(ticket), email)
          return {
            ticket,
            code_expires_at: sent.codeExpiresAt.toISOString(),
            resend_available_at: sent.resendAt.toISOString()
          }
        }),

        resend: Effect.fn("PasswordChange.resend")(function*(userId, ticket) {
          const { hash, row } = yield* tickets.open(userId, ticket)
          if (row.proof_hash !== null) {
            return yield* invalidField("ticket", "TICKET_ALREADY_COMPLETED", "The code of this ticket was already entered")
          }
          const wait = cooldownLeft(row.sent_at)
          if (wait > 0) return yield* tooSoon(wait)
          yield* mailCode(hash, yield* Effect.orDie(emailOf(userId)))
        }),

        verify: Effect.fn("PasswordChange.verify")(function*(userId, ticket, code) {
          const { hash, row } = yield* tickets.open(userId, ticket)
          yield* tickets.checkTypedCode(hash, { hash: row.code_hash, expiresAt: row.code_expires_at }, code)
          const proof = newToken()
          yield* sql`UPDATE password_change_tickets SET proof_hash = ${tokenHash(proof)}, code_hash = NULL
                     WHERE ticket_hash = ${hash}`.pipe(Effect.orDie)
          return { verification_proof: proof }
        }),

        complete: Effect.fn("PasswordChange.complete")(function*(userId, ticket, proof, newPassword) {
          const problems = passwordProblems(newPassword, "new_password")
          if (problems.length > 0) return yield* new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors: problems })
          const { hash, row } = yield* tickets.open(userId, ticket)
          if (!proofMatches(row.proof_hash, proof)) return yield* badProof()
          const passwordHash = yield* passwords.hash(newPassword)
          yield* tickets.complete(
            hash,
            sql`UPDATE users SET password_hash = ${passwordHash}, password_changed_at = now() WHERE id = ${userId}`.pipe(
              Effect.asVoid,
              Effect.orDie
            )
          )
          // The password's date shows on the user's own views.
          yield* refreshAccount(userActors, userId)
          // Every session ends (other processes drop theirs from cache within Sessions.cacheMillis);
          // this device carries on with a new one.
          yield* sessions.revokeAllOf(userId)
          const token = yield* sessions.create(userId, yield* requestClient)
          const email = yield* Effect.option(emailOf(userId))
          if (email._tag === "Some") yield* tickets.deliver(passwordChangedMail(email.value))
          return { token, auth_session_id_hash: tokenHash(token).toString("base64url") }
        })
      })
    })
  )
}
