import { Effect } from "effect"
import type { HttpServerRequest } from "effect/http"
import { LoginCompletion } from "../auth/LoginCompletion.ts"
import { OneTimeTokens } from "../auth/OneTimeTokens.ts"
import { BadRequest, Forbidden, invalidField } from "../http/Errors.ts"
import { SsoFlow } from "../sso/Flow.ts"
import { UsersRepo } from "../users/Repo.ts"
import { MfaProofs } from "./Proofs.ts"
import type { AuthenticationResponse } from "./Schemas.ts"
import { SmsCodes } from "./SmsCodes.ts"
import { WebAuthnCeremonies } from "./WebAuthn.ts"

/** Wrong proofs a ticket survives; then the login starts over (with the password). */
const MAX_FAILURES = 5

export const badTicket = () => invalidField("ticket", "INVALID_OR_EXPIRED_TICKET", "This login has expired or was completed; sign in again")
export const badCode = (path = "code") => invalidField(path, "INVALID_MFA_CODE", "Invalid two-factor code")

type Finished = Effect.Effect<{ token: string; user_id: string }, BadRequest, HttpServerRequest.HttpServerRequest>

/**
 * The /auth/login/mfa/* steps and passwordless WebAuthn. The ticket of
 * /auth/login (SignIn) is read without being used, the proof checked, and only
 * then is the ticket redeemed (once) for a session. A wrong proof says only
 * that the proof is wrong, and counts against the ticket.
 */
export const makeLoginSteps = Effect.gen(function*() {
  const tokens = yield* OneTimeTokens
  const completion = yield* LoginCompletion
  const mfa = yield* MfaProofs
  const smsCodes = yield* SmsCodes
  const webauthn = yield* WebAuthnCeremonies
  const users = yield* UsersRepo
  const sso = yield* SsoFlow

  const holder = (ticket: string) =>
    Effect.flatMap(tokens.peek("mfa_ticket", ticket), (held) =>
      held?.userId == null ? Effect.fail(badTicket()) : Effect.succeed({ userId: held.userId, data: held.data }))

  const countFailure = (ticket: string, data: Record<string, unknown>) => {
    const failures = (typeof data.failures === "number" ? data.failures : 0) + 1
    return failures >= MAX_FAILURES
      ? Effect.asVoid(tokens.redeem("mfa_ticket", ticket))
      : Effect.asVoid(tokens.update("mfa_ticket", ticket, { ...data, failures }))
  }

  /** Checks `prove` for the ticket's user, then trades the ticket for a session. */
  const step = (ticket: string, prove: (userId: string) => Effect.Effect<void, BadRequest>): Finished =>
    Effect.gen(function*() {
      const { userId, data } = yield* holder(ticket)
      yield* prove(userId).pipe(Effect.tapError(() => countFailure(ticket, data)))
      const redeemed = yield* tokens.redeem("mfa_ticket", ticket)
      if (redeemed?.userId !== userId) return yield* badTicket()
      return yield* completion.finish(userId)
    })

  const expect = (ok: boolean) => (ok ? Effect.void : Effect.fail(badCode()))

  return {
    totp: (ticket: string, code: string) =>
      step(ticket, (userId) => Effect.flatMap(mfa.verify(userId, { mfa_method: "totp", mfa_code: code }), expect)),
    sms: (ticket: string, code: string) =>
      step(ticket, (userId) =>
        Effect.flatMap(mfa.methods(userId), (m) => m.sms ? Effect.flatMap(smsCodes.check(userId, "login", code), expect) : Effect.fail(badCode()))),
    sendSms: (ticket: string) => Effect.flatMap(holder(ticket), ({ userId }) => smsCodes.send(userId, "login")),
    webauthnOptions: (ticket: string) => Effect.flatMap(holder(ticket), ({ userId }) => webauthn.authenticationOptions("mfa", userId)),
    webauthn: (ticket: string, challenge: string, response: AuthenticationResponse) =>
      step(ticket, (userId) => Effect.asVoid(webauthn.verifyAssertion("mfa", userId, challenge, response))),
    passwordlessOptions: webauthn.passwordlessOptions,
    passwordless: (challenge: string, response: AuthenticationResponse) =>
      Effect.gen(function*() {
        const userId = yield* webauthn.verifyAssertion("passwordless", null, challenge, response)
        const user = yield* users.findById(userId)
        // As with the password: with SSO enforced people sign in at the identity provider, operators excepted.
        if (user !== undefined && user.acls.length === 0 && (yield* sso.status).enforced) {
          return yield* new Forbidden({ code: "SSO_REQUIRED", message: "This instance signs people in through single sign-on" })
        }
        return yield* completion.finish(userId)
      })
  }
})
