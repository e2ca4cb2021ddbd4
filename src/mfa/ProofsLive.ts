import { Effect, Layer, Schema } from "effect"
import { maskPhone, normalizeBackupCode, totpStep } from "./Codes.ts"
import { type MfaMethods, type MfaProof, MfaProofs } from "./Proofs.ts"
import { type MfaState, MfaRepo } from "./Repo.ts"
import { AuthenticationResponse } from "./Schemas.ts"
import { SmsCodes } from "./SmsCodes.ts"
import { WebAuthnCeremonies } from "./WebAuthn.ts"

const decodeAssertion = Schema.decodeUnknownOption(AuthenticationResponse)

/** SMS is a companion of TOTP, on a phone the users slice has verified. */
export const methodsOf = (state: MfaState): MfaMethods => {
  const totp = state.totpSecret !== null
  const sms = totp && state.smsEnabled && state.verifiedPhone !== null
  return {
    totp,
    sms,
    webauthn: state.webauthnCredentials > 0,
    phoneHint: sms && state.verifiedPhone !== null ? maskPhone(state.verifiedPhone) : null
  }
}

/**
 * The real MfaProofs over the MFA tables. A TOTP code is used up by a
 * successful check (its time step is recorded), a backup code or an SMS code
 * likewise; a WebAuthn proof needs a challenge of
 * /users/@me/sudo/webauthn/authentication-options.
 */
export const MfaProofsLive = Layer.effect(
  MfaProofs,
  Effect.gen(function*() {
    const repo = yield* MfaRepo
    const smsCodes = yield* SmsCodes
    const webauthn = yield* WebAuthnCeremonies

    const methods = (userId: string) => Effect.map(repo.state(userId), methodsOf)

    /** A current TOTP code (never one used before) or an unused backup code. */
    const totpOrBackup = (userId: string, code: string) =>
      Effect.gen(function*() {
        const state = yield* repo.state(userId)
        if (state.totpSecret !== null) {
          const step = totpStep(state.totpSecret, code, state.totpLastStep)
          if (step !== undefined) return yield* repo.useTotpStep(userId, step)
        }
        const backup = normalizeBackupCode(code)
        return backup === undefined ? false : yield* repo.useBackupCode(userId, backup)
      })

    const verify = (userId: string, proof: MfaProof): Effect.Effect<boolean> => {
      switch (proof.mfa_method) {
        case "totp":
          return proof.mfa_code === undefined ? Effect.succeed(false) : totpOrBackup(userId, proof.mfa_code)
        case "sms":
          return proof.mfa_code === undefined
            ? Effect.succeed(false)
            : Effect.flatMap(methods(userId), (m) => m.sms ? smsCodes.check(userId, "sudo", proof.mfa_code ?? "") : Effect.succeed(false))
        case "webauthn": {
          const response = decodeAssertion(proof.webauthn_response)
          if (proof.webauthn_challenge === undefined || response._tag === "None") return Effect.succeed(false)
          return webauthn.verifyAssertion("sudo", userId, proof.webauthn_challenge, response.value).pipe(
            Effect.as(true),
            Effect.catch(() => Effect.succeed(false))
          )
        }
        case undefined:
          return Effect.succeed(false)
      }
    }

    return MfaProofs.of({
      methods,
      hasMfa: (userId) => Effect.map(methods(userId), (m) => m.totp || m.sms || m.webauthn),
      verify
    })
  })
)
