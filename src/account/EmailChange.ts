import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { AppConfig } from "../platform/Config.ts"
import { EmailRevert } from "../auth/EmailTokens.ts"
import { OneTimeTokens } from "../auth/OneTimeTokens.ts"
import { type BadRequest, Forbidden, invalidField, type TooManyRequests, unauthorized, type Unauthorized } from "../model/Errors.ts"
import { Mailer } from "../mail/Mailer.ts"
import { newToken, tokenHash } from "../platform/Crypto.ts"
import {
  CODE_TTL_MS,
  codeHash,
  cooldownLeft,
  inFuture,
  invalidTicket,
  newCode,
  proofMatches,
  RESEND_COOLDOWN_MS,
  tooSoon
} from "./Codes.ts"
import { makeEmailedCodeTickets } from "./EmailedCodeTickets.ts"
import { emailChangeNewMail, emailChangeOriginalMail } from "./Mails.ts"
import { emailBanned } from "../admin/bans/Refusals.ts"
import { BansRepo } from "../admin/bans/Repo.ts"

/** How long the `email_token` of a completed change can be shown back (PATCH /users/@me). */
const EMAIL_TOKEN_TTL = "30 minutes"

interface TicketRow {
  readonly user_id: string
  readonly bounced: boolean
  readonly require_original: boolean
  readonly original_email: string | null
  readonly original_code_hash: Uint8Array | null
  readonly original_code_expires_at: Date | string | null
  readonly original_sent_at: Date | string | null
  readonly original_proof_hash: Uint8Array | null
  readonly new_email: string | null
  readonly new_code_hash: Uint8Array | null
  readonly new_code_expires_at: Date | string | null
  readonly new_sent_at: Date | string | null
  readonly failed_attempts: number
  readonly expires_at: Date | string
  readonly completed_at: Date | string | null
}

export interface StartResult {
  readonly ticket: string
  readonly require_original: boolean
  readonly original_email: string | null
  readonly original_proof: string | null
  readonly original_code_expires_at: string | null
  readonly resend_available_at: string | null
}

export interface RequestNewResult {
  readonly ticket: string
  readonly new_email: string
  readonly new_code_expires_at: string
  readonly resend_available_at: string | null
}

type Failure = BadRequest | TooManyRequests | Forbidden

const mustHaveEmail = () => invalidField("email", "MUST_HAVE_EMAIL_TO_CHANGE_IT", "The account has no email address to change")
const originalFirst = () =>
  invalidField("ticket", "ORIGINAL_EMAIL_MUST_BE_VERIFIED_FIRST", "Verify the current email address first")
const badProof = () => invalidField("original_proof", "INVALID_PROOF_TOKEN", "Invalid proof")
const noNewEmail = () => invalidField("ticket", "NO_NEW_EMAIL_REQUESTED", "No new email address was requested")
const emailInUse = () => invalidField("new_email", "EMAIL_ALREADY_IN_USE", "Email is already registered")
const notBounced = () => new Forbidden({ code: "ACCESS_DENIED", message: "The account's email address has not bounced" })

const isUniqueViolation = (error: SqlError) => error.reason._tag === "UniqueViolation"

/**
 * Changing the account's email address, with both addresses proven:
 *
 * 1. start: a ticket. When the current address is verified a code goes there
 *    (`require_original`); otherwise the ticket comes with its proof at once.
 * 2. verify-original: the code gives `original_proof`.
 * 3. request-new (ticket + proof + new address): a code goes to the new address.
 * 4. verify-new: the code completes the change at once (the address is
 *    replaced and verified) and the old address, when it was verified, is sent
 *    an email-revert link. The answer's `email_token` lets a client that then
 *    sends it to PATCH /users/@me (the reference's last step) be told "done".
 *
 * The bounced path (the current address bounces) starts at request-new and
 * skips the old address, whose mail would not arrive.
 */
export class EmailChange extends Context.Service<EmailChange, {
  readonly start: (userId: string) => Effect.Effect<StartResult, Failure | Unauthorized>
  readonly resendOriginal: (userId: string, ticket: string) => Effect.Effect<void, Failure>
  readonly verifyOriginal: (userId: string, ticket: string, code: string) => Effect.Effect<{ original_proof: string }, BadRequest>
  readonly requestNew: (userId: string, ticket: string, newEmail: string, originalProof: string) => Effect.Effect<RequestNewResult, Failure>
  readonly resendNew: (userId: string, ticket: string) => Effect.Effect<void, Failure>
  readonly verifyNew: (userId: string, ticket: string, code: string, originalProof: string) => Effect.Effect<{ email_token: string }, BadRequest | Forbidden>
  readonly bouncedRequestNew: (userId: string, newEmail: string) => Effect.Effect<RequestNewResult, Failure | Forbidden | Unauthorized>
  readonly bouncedResendNew: (userId: string, ticket: string) => Effect.Effect<void, Failure | Forbidden | Unauthorized>
  readonly bouncedVerifyNew: (userId: string, ticket: string, code: string) => Effect.Effect<void, BadRequest | Forbidden | Unauthorized>
  /** For PATCH /users/@me: the address a completed change's `email_token` stands for (used up), or undefined. */
  readonly redeemEmailToken: (userId: string, token: string) => Effect.Effect<string | undefined>
}>()("guildhall/EmailChange") {
  static readonly layer = Layer.effect(
    EmailChange,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const mailer = yield* Mailer
      const tokens = yield* OneTimeTokens
      const config = yield* AppConfig
      const tickets = yield* makeEmailedCodeTickets<TicketRow>("email_change_tickets")
      const bans = yield* BansRepo
      /** The login slice's email-revert link, mailed to the address a change replaced. */
      const sendRevert = (userId: string, oldEmail: string) =>
        EmailRevert.issue(userId, oldEmail).pipe(
          Effect.provideService(OneTimeTokens, tokens),
          Effect.provideService(Mailer, mailer),
          Effect.provideService(AppConfig, config)
        )

      const account = (userId: string) =>
        sql<{ email: string | null; email_verified: boolean; email_bounced: boolean }>`
          SELECT email, email_verified, email_bounced FROM users WHERE id = ${userId}`.pipe(
          Effect.orDie,
          Effect.flatMap((rows) => rows[0] === undefined ? Effect.fail(unauthorized()) : Effect.succeed(rows[0]))
        )

      /** Opens a new ticket, replacing the user's earlier ones. */
      const newTicket = (userId: string, fields: {
        readonly bounced: boolean
        readonly requireOriginal: boolean
        readonly originalEmail: string | null
        readonly originalCode: string | null
        readonly originalProof: string | null
      }) => {
        const now = Date.now()
        return tickets.create(userId, (ticketHash, expiresAt) =>
          sql`INSERT INTO email_change_tickets (
                ticket_hash, user_id, bounced, require_original, original_email,
                original_code_hash, original_code_expires_at, original_sent_at, original_proof_hash, expires_at)
              VALUES (
                ${ticketHash}, ${userId}, ${fields.bounced}, ${fields.requireOriginal}, ${fields.originalEmail},
                ${fields.originalCode === null ? null : codeHash(fields.originalCode)},
                ${fields.originalCode === null ? null : inFuture(CODE_TTL_MS, now)},
                ${fields.originalCode === null ? null : new Date(now)},
                ${fields.originalProof === null ? null : tokenHash(fields.originalProof)},
                ${expiresAt})`)
      }

      /** Mails a code to the new address of the ticket (a first request, a changed address or a resend). */
      const sendNewCode = (ticket: string, hash: Buffer, row: TicketRow, userId: string, newEmail: string) =>
        Effect.gen(function*() {
          if (row.original_email !== null && newEmail.toLowerCase() === row.original_email.toLowerCase()) {
            return yield* invalidField("new_email", "NEW_EMAIL_MUST_BE_DIFFERENT", "The new email address must differ from the current one")
          }
          if (yield* bans.emailBanned(newEmail)) return yield* emailBanned()
          const owner = yield* sql<{ id: string }>`SELECT id FROM users WHERE lower(email) = lower(${newEmail})`.pipe(Effect.orDie)
          if (owner.some((u) => String(u.id) !== userId)) return yield* emailInUse()
          const wait = cooldownLeft(row.new_sent_at)
          if (wait > 0) return yield* tooSoon(wait)
          const now = Date.now()
          const code = newCode()
          const expiresAt = inFuture(CODE_TTL_MS, now)
          yield* sql`UPDATE email_change_tickets
                     SET new_email = ${newEmail}, new_code_hash = ${codeHash(code)}, new_code_expires_at = ${expiresAt},
                         new_sent_at = ${new Date(now)}
                     WHERE ticket_hash = ${hash}`.pipe(Effect.orDie)
          yield* tickets.deliver(emailChangeNewMail(newEmail, code, CODE_TTL_MS))
          return {
            ticket,
            new_email: newEmail,
            new_code_expires_at: expiresAt.toISOString(),
            resend_available_at: inFuture(RESEND_COOLDOWN_MS, now).toISOString()
          }
        })

      /** Checks the new address's code; on success the change is made, in one transaction with using up the ticket. */
      const finish = (userId: string, hash: Buffer, row: TicketRow, code: string) =>
        Effect.gen(function*() {
          const newEmail = row.new_email
          if (newEmail === null) return yield* noNewEmail()
          // Banned since its code was sent.
          if (yield* bans.emailBanned(newEmail)) return yield* emailBanned()
          yield* tickets.checkTypedCode(hash, { hash: row.new_code_hash, expiresAt: row.new_code_expires_at }, code)
          yield* tickets.complete(
            hash,
            sql`UPDATE users SET email = ${newEmail}, email_verified = true, email_bounced = false WHERE id = ${userId}`.pipe(
              Effect.asVoid,
              Effect.catchIf(isUniqueViolation, () => Effect.fail(emailInUse())),
              Effect.orDie
            )
          )
          return newEmail
        })

      const bouncedAccount = (userId: string) =>
        Effect.gen(function*() {
          const user = yield* account(userId)
          if (!user.email_bounced) return yield* notBounced()
          if (user.email === null) return yield* mustHaveEmail()
          return { email: user.email }
        })

      const openBounced = (userId: string, ticket: string) =>
        Effect.gen(function*() {
          yield* bouncedAccount(userId)
          const opened = yield* tickets.open(userId, ticket)
          if (!opened.row.bounced) return yield* invalidTicket()
          return opened
        })

      const resendNewOf = (userId: string, ticket: string, hash: Buffer, row: TicketRow) =>
        row.new_email === null ? Effect.fail(noNewEmail()) : Effect.asVoid(sendNewCode(ticket, hash, row, userId, row.new_email))

      return EmailChange.of({
        start: Effect.fn("EmailChange.start")(function*(userId) {
          const user = yield* account(userId)
          if (user.email === null) return yield* mustHaveEmail()
          if (user.email_verified) {
            const code = newCode()
            const now = Date.now()
            const ticket = yield* newTicket(userId, {
              bounced: false,
              requireOriginal: true,
              originalEmail: user.email,
              originalCode: code,
              originalProof: null
            })
            yield* tickets.deliver(emailChangeOriginalMail(user.email, code, CODE_TTL_MS))
            return {
              ticket,
              require_original: true,
              original_email: user.email,
              original_proof: null,
              original_code_expires_at: inFuture(CODE_TTL_MS, now).toISOString(),
              resend_available_at: inFuture(RESEND_COOLDOWN_MS, now).toISOString()
            }
          }
          // An unverified address proves nothing: the new one alone is checked.
          const proof = newToken()
          const ticket = yield* newTicket(userId, {
            bounced: false,
            requireOriginal: false,
            originalEmail: user.email,
            originalCode: null,
            originalProof: proof
          })
          return {
            ticket,
            require_original: false,
            original_email: user.email,
            original_proof: proof,
            original_code_expires_at: null,
            resend_available_at: null
          }
        }),

        resendOriginal: Effect.fn("EmailChange.resendOriginal")(function*(userId, ticket) {
          const { hash, row } = yield* tickets.open(userId, ticket)
          if (!row.require_original || row.original_proof_hash !== null) {
            return yield* invalidField("ticket", "ORIGINAL_EMAIL_ALREADY_VERIFIED", "The current email address is already verified")
          }
          if (row.original_email === null) {
            return yield* invalidField("ticket", "NO_ORIGINAL_EMAIL_ON_RECORD", "There is no current email address")
          }
          const wait = cooldownLeft(row.original_sent_at)
          if (wait > 0) return yield* tooSoon(wait)
          const code = newCode()
          const now = Date.now()
          yield* sql`UPDATE email_change_tickets
                     SET original_code_hash = ${codeHash(code)}, original_code_expires_at = ${inFuture(CODE_TTL_MS, now)},
                         original_sent_at = ${new Date(now)}
                     WHERE ticket_hash = ${hash}`.pipe(Effect.orDie)
          yield* tickets.deliver(emailChangeOriginalMail(row.original_email, code, CODE_TTL_MS))
        }),

        verifyOriginal: Effect.fn("EmailChange.verifyOriginal")(function*(userId, ticket, code) {
          const { hash, row } = yield* tickets.open(userId, ticket)
          if (!row.require_original) {
            return yield* invalidField("ticket", "ORIGINAL_VERIFICATION_NOT_REQUIRED", "The current email address needs no code")
          }
          yield* tickets.checkTypedCode(hash, { hash: row.original_code_hash, expiresAt: row.original_code_expires_at }, code)
          // A code is used once; a new proof replaces any earlier one.
          const proof = newToken()
          yield* sql`UPDATE email_change_tickets
                     SET original_proof_hash = ${tokenHash(proof)}, original_code_hash = NULL
                     WHERE ticket_hash = ${hash}`.pipe(Effect.orDie)
          return { original_proof: proof }
        }),

        requestNew: Effect.fn("EmailChange.requestNew")(function*(userId, ticket, newEmail, originalProof) {
          const { hash, row } = yield* tickets.open(userId, ticket)
          if (row.original_proof_hash === null) return yield* originalFirst()
          if (!proofMatches(row.original_proof_hash, originalProof)) return yield* badProof()
          return yield* sendNewCode(ticket, hash, row, userId, newEmail)
        }),

        resendNew: Effect.fn("EmailChange.resendNew")(function*(userId, ticket) {
          const { hash, row } = yield* tickets.open(userId, ticket)
          yield* resendNewOf(userId, ticket, hash, row)
        }),

        verifyNew: Effect.fn("EmailChange.verifyNew")(function*(userId, ticket, code, originalProof) {
          const { hash, row } = yield* tickets.open(userId, ticket)
          if (row.original_proof_hash === null) return yield* originalFirst()
          if (!proofMatches(row.original_proof_hash, originalProof)) return yield* badProof()
          const newEmail = yield* finish(userId, hash, row, code)
          // Only a proven old address may undo the change: an unverified one could be anyone's.
          if (row.require_original && row.original_email !== null) {
            yield* sendRevert(userId, row.original_email)
          }
          const emailToken = yield* tokens.issue("email_change_proof", userId, EMAIL_TOKEN_TTL, { email: newEmail })
          return { email_token: emailToken }
        }),

        bouncedRequestNew: Effect.fn("EmailChange.bouncedRequestNew")(function*(userId, newEmail) {
          const { email } = yield* bouncedAccount(userId)
          const ticket = yield* newTicket(userId, {
            bounced: true,
            requireOriginal: false,
            originalEmail: email,
            originalCode: null,
            originalProof: null
          })
          const { hash, row } = yield* Effect.orDie(tickets.open(userId, ticket))
          return yield* sendNewCode(ticket, hash, row, userId, newEmail)
        }),

        bouncedResendNew: Effect.fn("EmailChange.bouncedResendNew")(function*(userId, ticket) {
          const { hash, row } = yield* openBounced(userId, ticket)
          yield* resendNewOf(userId, ticket, hash, row)
        }),

        // No revert mail: the old address is the one that bounces.
        bouncedVerifyNew: Effect.fn("EmailChange.bouncedVerifyNew")(function*(userId, ticket, code) {
          const { hash, row } = yield* openBounced(userId, ticket)
          yield* finish(userId, hash, row, code)
        }),

        redeemEmailToken: Effect.fn("EmailChange.redeemEmailToken")(function*(userId, token) {
          const found = yield* tokens.peek("email_change_proof", token)
          if (found?.userId !== userId) return undefined
          const redeemed = yield* tokens.redeem("email_change_proof", token)
          return typeof redeemed?.data.email === "string" ? redeemed.data.email : undefined
        })
      })
    })
  )
}
