import { type Duration, Effect } from "effect"
import { AppConfig } from "../platform/Config.ts"
import { type Mail, Mailer } from "../mail/Mailer.ts"
import { emailRevertMail, passwordResetMail, verifyEmailMail } from "./Mails.ts"
import { OneTimeTokens, type Redeemed } from "./OneTimeTokens.ts"

/**
 * The emailed tokens of the account flows. Each records the address it was
 * sent to (`data.email`), so a token cannot act on an address the account no
 * longer has. A new token of a kind ends the user's earlier ones.
 */
export const VERIFY_TTL = "24 hours"
export const RESET_TTL = "1 hour"
export const REVERT_TTL = "7 days"

/** Mail goes out best effort: a failed delivery is logged, the flow goes on (the user can ask again). */
const deliver = (mail: Mail) =>
  Effect.flatMap(Mailer, (mailer) => mailer.send(mail)).pipe(
    Effect.catch((error) => Effect.logWarning(`email "${mail.subject}" not delivered`, error.message))
  )

const issueAndSend = (
  kind: "verify_email" | "password_reset" | "email_revert",
  ttl: Duration.Input,
  userId: string,
  email: string,
  compose: (publicUrl: string, to: string, token: string) => Mail
) =>
  Effect.gen(function*() {
    const tokens = yield* OneTimeTokens
    const { publicUrl } = yield* AppConfig
    yield* tokens.revokeAll(kind, userId)
    const token = yield* tokens.issue(kind, userId, ttl, { email })
    yield* deliver(compose(publicUrl, email, token))
  })

/** Emails a link that verifies `email` as the address of `userId`. */
export const sendVerification = (userId: string, email: string) =>
  issueAndSend("verify_email", VERIFY_TTL, userId, email, verifyEmailMail)

/** Emails a password reset link to `email`. */
export const sendPasswordReset = (userId: string, email: string) =>
  issueAndSend("password_reset", RESET_TTL, userId, email, passwordResetMail)

/**
 * For the account slice: call when an email change of `userId` completes,
 * with the address it had before. Emails that OLD address a link to
 * POST /auth/email-revert, which puts it back, sets a new password and ends
 * every session. Needs only shared services (OneTimeTokens, Mailer, AppConfig).
 */
export const EmailRevert = {
  issue: (userId: string, oldEmail: string): Effect.Effect<void, never, OneTimeTokens | Mailer | AppConfig> =>
    issueAndSend("email_revert", REVERT_TTL, userId, oldEmail, emailRevertMail)
}

/** The address a redeemed token was sent to, when it carries one. */
export const emailOf = (redeemed: Redeemed): string | undefined =>
  typeof redeemed.data.email === "string" ? redeemed.data.email : undefined
