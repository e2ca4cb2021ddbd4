import { Context, Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import type { Forbidden } from "../model/Errors.ts"
import { MfaProofs } from "../mfa/Proofs.ts"
import { LoginCompletion, type NewSession } from "./LoginCompletion.ts"
import { OneTimeTokens } from "./OneTimeTokens.ts"
import { checkStanding } from "./Standing.ts"

/** AuthMfaRequiredResponse: the ticket the /auth/login/mfa/* steps take, and the methods it can be used with. */
export interface MfaRequiredAnswer {
  readonly mfa: true
  readonly ticket: string
  readonly allowed_methods: ReadonlyArray<string>
  readonly sms: boolean
  readonly totp: boolean
  readonly webauthn: boolean
  readonly sms_phone_hint: string | null
}

export type LoginAnswer = NewSession | MfaRequiredAnswer

/** How long the MFA ticket lives (conventions.md). */
const MFA_TICKET_TTL = "5 minutes"

/**
 * The answer of every password-like way in (login, reset, email revert) once
 * the identity is proven: with MFA on, an MFA ticket for the /auth/login/mfa/*
 * steps; otherwise a new session.
 */
export class SignIn extends Context.Service<SignIn, {
  readonly answer: (userId: string) => Effect.Effect<LoginAnswer, Forbidden, HttpServerRequest.HttpServerRequest>
  /**
   * The MFA ticket answer when the user has MFA, else undefined. An account an
   * operator keeps out is refused here already, not after its MFA step.
   */
  readonly mfaChallenge: (userId: string) => Effect.Effect<MfaRequiredAnswer | undefined, Forbidden>
}>()("guildhall/SignIn") {
  static readonly layer = Layer.effect(
    SignIn,
    Effect.gen(function*() {
      const mfa = yield* MfaProofs
      const tokens = yield* OneTimeTokens
      const completion = yield* LoginCompletion
      const sql = yield* SqlClient.SqlClient

      const mfaChallenge = Effect.fn("SignIn.mfaChallenge")(function*(userId: string) {
        yield* checkStanding(sql, userId)
        const methods = yield* mfa.methods(userId)
        if (!methods.totp && !methods.sms && !methods.webauthn) return undefined
        const ticket = yield* tokens.issue("mfa_ticket", userId, MFA_TICKET_TTL, {})
        // Backup codes exist alongside TOTP or a security key, and are redeemed through the TOTP step.
        const allowed = [
          ...(methods.totp ? ["totp"] : []),
          ...(methods.totp || methods.webauthn ? ["backup"] : []),
          ...(methods.sms ? ["sms"] : []),
          ...(methods.webauthn ? ["webauthn"] : [])
        ]
        return {
          mfa: true,
          ticket,
          allowed_methods: allowed,
          sms: methods.sms,
          totp: methods.totp,
          webauthn: methods.webauthn,
          sms_phone_hint: methods.sms ? methods.phoneHint : null
        } satisfies MfaRequiredAnswer
      })

      const answer = Effect.fn("SignIn.answer")((userId: string) =>
        Effect.flatMap(mfaChallenge(userId), (challenge): Effect.Effect<LoginAnswer, Forbidden, HttpServerRequest.HttpServerRequest> =>
          challenge === undefined ? completion.finish(userId) : Effect.succeed(challenge)))

      return SignIn.of({ answer, mfaChallenge })
    })
  )
}
