import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { CODE_TTL_MS, codeHash, MAX_FAILED_ATTEMPTS, newCode } from "../account/Codes.ts"
import { Mailer } from "../mail/Mailer.ts"
import { BadRequest } from "../model/Errors.ts"
import { newToken, sameBytes, tokenHash } from "../platform/Crypto.ts"
import { dsaCodeMail } from "./Mails.ts"

/** A verified address may file reports for this long with its ticket. */
const TICKET_TTL_MS = 60 * 60_000

export const invalidDsaCode = () =>
  new BadRequest({ code: "INVALID_DSA_VERIFICATION_CODE", message: "Invalid or expired verification code. Request a new email." })
export const invalidDsaTicket = () =>
  new BadRequest({ code: "INVALID_DSA_TICKET", message: "Invalid or expired ticket. Verify the email address again." })

/**
 * The email check of DSA reports from people without an account: a code mailed
 * to the address (one at a time per address, a few tries), then a ticket that
 * stands for the verified address. Only hashes of both are stored; a ticket is
 * spent by the report it files.
 */
export class DsaVerification extends Context.Service<DsaVerification, {
  readonly send: (email: string) => Effect.Effect<void>
  readonly verify: (email: string, code: string) => Effect.Effect<string, BadRequest>
  /** The address a live ticket verified. */
  readonly emailOf: (ticket: string) => Effect.Effect<string, BadRequest>
  /** Uses the ticket up, once its report is filed. */
  readonly spend: (ticket: string) => Effect.Effect<void>
}>()("guildhall/DsaVerification") {
  static readonly layer = Layer.effect(
    DsaVerification,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const mailer = yield* Mailer

      const send = Effect.fn("DsaVerification.send")(function*(email: string) {
        const code = newCode()
        const address = email.toLowerCase()
        yield* sql`
          INSERT INTO dsa_email_verifications (email, code_hash, attempts, expires_at)
          VALUES (${address}, ${codeHash(code).toString("hex")}, 0, ${new Date(Date.now() + CODE_TTL_MS)})
          ON CONFLICT (email) DO UPDATE SET code_hash = EXCLUDED.code_hash, attempts = 0, expires_at = EXCLUDED.expires_at`.pipe(Effect.orDie)
        yield* mailer.send(dsaCodeMail(email, code)).pipe(
          Effect.catch((error) => Effect.logWarning("DSA verification code not delivered", error.message))
        )
      })

      const verify = Effect.fn("DsaVerification.verify")(function*(email: string, code: string) {
        const address = email.toLowerCase()
        const [row] = yield* sql<{ code_hash: string; attempts: number; expires_at: Date }>`
          SELECT code_hash, attempts, expires_at FROM dsa_email_verifications WHERE email = ${address}`.pipe(Effect.orDie)
        if (row === undefined || new Date(row.expires_at).getTime() <= Date.now()) return yield* invalidDsaCode()
        if (!sameBytes(Buffer.from(row.code_hash, "hex"), codeHash(code))) {
          // Guessing is cut short: after a few wrong codes the address needs a new mail.
          yield* (row.attempts + 1 >= MAX_FAILED_ATTEMPTS
            ? sql`DELETE FROM dsa_email_verifications WHERE email = ${address}`
            : sql`UPDATE dsa_email_verifications SET attempts = attempts + 1 WHERE email = ${address}`).pipe(Effect.orDie)
          return yield* invalidDsaCode()
        }
        const ticket = newToken()
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`DELETE FROM dsa_email_verifications WHERE email = ${address}`
          yield* sql`INSERT INTO dsa_tickets (ticket_hash, email, expires_at)
            VALUES (${tokenHash(ticket).toString("hex")}, ${address}, ${new Date(Date.now() + TICKET_TTL_MS)})`
        })).pipe(Effect.orDie)
        return ticket
      })

      const emailOf = Effect.fn("DsaVerification.emailOf")(function*(ticket: string) {
        const [row] = yield* sql<{ email: string }>`
          SELECT email FROM dsa_tickets WHERE ticket_hash = ${tokenHash(ticket).toString("hex")} AND expires_at > now()`.pipe(Effect.orDie)
        if (row === undefined) return yield* invalidDsaTicket()
        return row.email
      })

      const spend = (ticket: string) =>
        sql`DELETE FROM dsa_tickets WHERE ticket_hash = ${tokenHash(ticket).toString("hex")}`.pipe(Effect.asVoid, Effect.orDie)

      return DsaVerification.of({ send, verify, emailOf, spend })
    })
  )
}
