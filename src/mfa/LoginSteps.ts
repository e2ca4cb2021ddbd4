import { Effect } from "effect"
import type { HttpServerRequest } from "effect/http"
import { LoginCompletion, type NewSession } from "../auth/LoginCompletion.ts"
import { OneTimeTokens } from "../auth/OneTimeTokens.ts"
import { BadRequest, Forbidden, invalidField } from "../model/Errors.ts"
import { tokenHash } from "../platform/Crypto.ts"
import { SsoFlow } from "../sso/Flow.ts"
import { UsersRepo } from "../users/Repo.ts"
import { MfaProofs } from "./Proofs.ts"
import { MfaRepo } from "./Repo.ts"
import type { AuthenticationResponse } from "./Schemas.ts"
import { SmsCodes } from "./SmsCodes.ts"
import { WebAuthnCeremonies } from "./WebAuthn.ts"

/** Proofs a ticket may be presented with; then the login starts over (with the password). */
const MAX_ATTEMPTS = 5

export const badTicket = () => invalidField("ticket", "INVALID_OR_EXPIRED_TICKET", "This login has expired or was completed; sign in again")
export const badCode = (path = "code") => invalidField(path, "INVALID_MFA_CODE", "Invalid two-factor code")

type Finished = Effect.Effect<NewSession, BadRequest, HttpServerRequest.HttpServerRequest>

/**
 * The /auth/login/mfa/* steps and passwordless WebAuthn. Each proof presented
 * with the ticket of /auth/login (SignIn) counts against it before it is
 * checked, five at most; only a valid one redeems the ticket (once) for a
 * session. A wrong proof says only that the proof is wrong.
 */
export const makeLoginSteps = Effect.gen(function*() {
  const tokens = yield* OneTimeTokens
  const completion = yield* LoginCompletion
  const mfa = yield* MfaProofs
  const smsCodes = yield* SmsCodes
  const webauthn = yield* WebAuthnCeremonies
  const users = yield* UsersRepo
  const sso = yield* SsoFlow
  const repo = yield* MfaRepo

  const holder = (ticket: string) =>
    Effect.flatMap(tokens.peek("mfa_ticket", ticket), (held) => held?.userId == null ? Effect.fail(badTicket()) : Effect.succeed(held.userId))

  /** Counts an attempt on the ticket, checks `prove` for the ticket's user, then trades the ticket for a session. */
  const step = (ticket: string, prove: (userId: string) => Effect.Effect<void, BadRequest>): Finished =>
    Effect.gen(function*() {
      const userId = yield* repo.attemptTicket(tokenHash(ticket), MAX_ATTEMPTS)
      if (userId === undefined) return yield* badTicket()
      yield* prove(userId)
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
    sendSms: (ticket: string) => Effect.flatMap(holder(ticket), (userId) => smsCodes.send(userId, "login")),
    webauthnOptions: (ticket: string) => Effect.flatMap(holder(ticket), (userId) => webauthn.authenticationOptions("mfa", userId)),
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
