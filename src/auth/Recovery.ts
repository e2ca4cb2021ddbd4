import { Context, Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import type { AppConfig } from "../platform/Config.ts"
import { BadRequest, type FieldError, invalidField, type Unavailable } from "../model/Errors.ts"
import { UserActors } from "../guilds/UserActors.ts"
import type { Mailer } from "../mail/Mailer.ts"
import { holdAccount, refreshAccount } from "../users/AccountRefresh.ts"
import { UsersRepo } from "../users/Repo.ts"
import { emailOf, sendPasswordReset, sendVerification } from "./EmailTokens.ts"
import { OneTimeTokens } from "./OneTimeTokens.ts"
import { Passwords } from "./Passwords.ts"
import { passwordProblems } from "./PasswordPolicy.ts"
import { Sessions } from "./Sessions.ts"
import { type LoginAnswer, SignIn } from "./SignIn.ts"

const invalidForm = (errors: ReadonlyArray<FieldError>) =>
  new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors })

/**
 * The emailed-token flows of part A: email verification, password reset
 * (forgot/reset) and email revert. Reset and revert prove the mailbox, so they
 * also verify it, set the password, and end every session of the user before
 * answering like a login (MFA ticket or a new session).
 */
export class Recovery extends Context.Service<Recovery, {
  /** Emails a reset link when the address has an account; answers the same, in the same time, either way. */
  readonly forgot: (email: string) => Effect.Effect<void>
  readonly resetTokenValid: (token: string) => Effect.Effect<boolean>
  readonly reset: (token: string, password: string) => Effect.Effect<LoginAnswer, BadRequest | Unavailable, HttpServerRequest.HttpServerRequest>
  readonly revert: (token: string, password: string) => Effect.Effect<LoginAnswer, BadRequest | Unavailable, HttpServerRequest.HttpServerRequest>
  /** Marks the address verified; answers whose it is. */
  readonly verify: (token: string) => Effect.Effect<string, BadRequest>
  readonly resendVerification: (userId: string) => Effect.Effect<void, BadRequest>
  /** The first verification email of a new account. */
  readonly welcome: (userId: string, email: string) => Effect.Effect<void>
}>()("guildhall/Recovery") {
  static readonly layer = Layer.effect(
    Recovery,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const users = yield* UsersRepo
      const passwords = yield* Passwords
      const sessions = yield* Sessions
      const tokens = yield* OneTimeTokens
      const signIn = yield* SignIn
      const userActors = yield* UserActors
      const mailing = yield* Effect.context<OneTimeTokens | Mailer | AppConfig>()
      const withMailing = <A, E>(effect: Effect.Effect<A, E, OneTimeTokens | Mailer | AppConfig>) =>
        Effect.provideContext(effect, mailing)

      /** Sets the password and ends every session; `email`, when given, becomes the verified address. */
      const takeOver = (userId: string, password: string, email: string | undefined) =>
        Effect.gen(function*() {
          const hash = yield* passwords.hash(password)
          if (email !== undefined) yield* holdAccount(userActors, userId)
          const rows = yield* sql`
            UPDATE users SET password_hash = ${hash}, password_changed_at = now(),
                             email = COALESCE(${email ?? null}, email),
                             email_verified = email_verified OR ${email !== undefined}
            WHERE id = ${userId}
            RETURNING id`.pipe(Effect.orDie)
          if (rows.length === 0) return false
          // The password's date, and maybe the address, show on the user's own views.
          yield* refreshAccount(userActors, userId)
          yield* sessions.revokeAllOf(userId)
          yield* tokens.revokeAll("password_reset", userId)
          return true
        })

      const forgot = Effect.fn("Recovery.forgot")((email: string) =>
        Effect.asVoid(Effect.forkDetach(
          Effect.gen(function*() {
            const user = yield* users.findByEmail(email)
            if (user?.email == null || user.bot) return
            yield* withMailing(sendPasswordReset(user.id, user.email))
          })
        )))

      const reset = Effect.fn("Recovery.reset")(function*(token: string, password: string) {
        const problems = passwordProblems(password)
        if (problems.length > 0) return yield* invalidForm(problems)
        const badToken = invalidField("token", "INVALID_OR_EXPIRED_RESET_TOKEN", "This reset link is invalid or has expired")
        const redeemed = yield* tokens.redeem("password_reset", token)
        if (redeemed?.userId == null) return yield* badToken
        const user = yield* users.findById(redeemed.userId)
        const sentTo = emailOf(redeemed)
        if (user === undefined || sentTo === undefined) return yield* badToken
        // The address the link went to is proven; it is verified only if it is still the account's.
        const stillCurrent = user.email !== null && user.email.toLowerCase() === sentTo.toLowerCase()
        if (!(yield* takeOver(user.id, password, stillCurrent ? user.email ?? undefined : undefined))) return yield* badToken
        return yield* signIn.answer(user.id)
      })

      const revert = Effect.fn("Recovery.revert")(function*(token: string, password: string) {
        const problems = passwordProblems(password)
        if (problems.length > 0) return yield* invalidForm(problems)
        const badToken = invalidField("token", "INVALID_OR_EXPIRED_REVERT_TOKEN", "This link is invalid or has expired")
        const found = yield* tokens.peek("email_revert", token)
        const oldEmail = found === undefined ? undefined : emailOf(found)
        if (found?.userId == null || oldEmail === undefined) return yield* badToken
        const owner = yield* users.findByEmail(oldEmail)
        if (owner !== undefined && owner.id !== found.userId) {
          return yield* invalidField("email", "EMAIL_ALREADY_IN_USE", "That address now belongs to another account")
        }
        const redeemed = yield* tokens.redeem("email_revert", token)
        if (redeemed?.userId == null) return yield* badToken
        const userId = redeemed.userId
        if (!(yield* takeOver(userId, password, oldEmail))) return yield* badToken
        // Whatever change was under way is what is being undone.
        for (const kind of ["email_change_original", "email_change_new", "email_change_proof", "email_revert"] as const) {
          yield* tokens.revokeAll(kind, userId)
        }
        return yield* signIn.answer(userId)
      })

      const verify = Effect.fn("Recovery.verify")(function*(token: string) {
        const badToken = invalidField("token", "INVALID_OR_EXPIRED_VERIFICATION_TOKEN", "This link is invalid or has expired")
        const redeemed = yield* tokens.redeem("verify_email", token)
        const sentTo = redeemed === undefined ? undefined : emailOf(redeemed)
        if (redeemed?.userId == null || sentTo === undefined) return yield* badToken
        const rows = yield* sql`UPDATE users SET email_verified = true
                                WHERE id = ${redeemed.userId} AND lower(email) = lower(${sentTo})
                                RETURNING id`.pipe(Effect.orDie)
        if (rows.length === 0) return yield* badToken
        return redeemed.userId
      })

      const resendVerification = Effect.fn("Recovery.resendVerification")(function*(userId: string) {
        const user = yield* users.findById(userId)
        if (user?.email == null) {
          return yield* invalidField("email", "EMAIL_IS_REQUIRED", "The account has no email address")
        }
        if (user.email_verified) {
          return yield* invalidField("email", "ACCOUNT_ALREADY_VERIFIED", "The email address is already verified")
        }
        yield* withMailing(sendVerification(user.id, user.email))
      })

      return Recovery.of({
        forgot,
        resetTokenValid: Effect.fn("Recovery.resetTokenValid")((token) =>
          Effect.map(tokens.peek("password_reset", token), (found) => found !== undefined)),
        reset,
        revert,
        verify,
        resendVerification,
        welcome: Effect.fn("Recovery.welcome")((userId, email) => withMailing(sendVerification(userId, email)))
      })
    })
  )
}
