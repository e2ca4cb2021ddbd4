import { Effect } from "effect"
import { Sudo, type SudoProof } from "../auth/Sudo.ts"
import { UserActors } from "../guilds/UserActors.ts"
import type { CurrentUser } from "../http/Authentication.ts"
import { BadRequest, Forbidden, invalidField, unknown } from "../model/Errors.ts"
import { refreshAccount } from "../users/AccountRefresh.ts"
import { newBackupCodes, normalizeTotpSecret, totpStep } from "./Codes.ts"
import { badCode } from "./LoginSteps.ts"
import { MfaProofs } from "./Proofs.ts"
import { methodsOf } from "./ProofsLive.ts"
import { MfaRepo } from "./Repo.ts"
import type { RegistrationResponse } from "./Schemas.ts"
import { SmsCodes } from "./SmsCodes.ts"
import { WebAuthnCeremonies } from "./WebAuthn.ts"

type Me = CurrentUser["Service"]

const notEnabled = (message: string) => new BadRequest({ code: "TWO_FA_NOT_ENABLED", message })
const sameCode = (a: string, b: string) => a.replace(/[\s-]/g, "").toLowerCase() === b.replace(/[\s-]/g, "").toLowerCase()

/**
 * What the signed-in user does with their methods under /users/@me/mfa and
 * /users/@me/sudo. Every change needs sudo mode (src/auth/Sudo.ts): the
 * password while no MFA is on, an MFA proof after. A method added or removed
 * changes `mfa_enabled` and `authenticator_types`, which the user's actor
 * shows: it reads them again after the commit.
 */
export const makeEnrollment = Effect.gen(function*() {
  const sudo = yield* Sudo
  const repo = yield* MfaRepo
  const mfa = yield* MfaProofs
  const webauthn = yield* WebAuthnCeremonies
  const smsCodes = yield* SmsCodes
  const userActors = yield* UserActors

  const backupCodesOf = (userId: string) => Effect.map(repo.backupCodes(userId), (backup_codes) => ({ backup_codes }))

  /** Whether the request already holds a sudo token (then its MFA fields were not checked). */
  const holdsSudo = (me: Me) =>
    sudo.require(me, {}).pipe(Effect.as(true), Effect.catch((error) => error instanceof Forbidden ? Effect.succeed(false) : Effect.fail(error)))

  return {
    enableTotp: (me: Me, payload: SudoProof & { readonly secret: string; readonly code: string }) =>
      Effect.gen(function*() {
        yield* sudo.require(me, payload)
        if ((yield* repo.state(me.id)).totpSecret !== null) {
          return yield* new BadRequest({ code: "BAD_REQUEST", message: "An authenticator app is set up already; disable it first" })
        }
        const secret = normalizeTotpSecret(payload.secret)
        if (secret === undefined) return yield* invalidField("secret", "INVALID_FORMAT", "Expected a base32 secret of 80 to 512 bits")
        const step = totpStep(secret, payload.code, null)
        if (step === undefined) return yield* badCode()
        yield* repo.enableTotp(me.id, secret, step, newBackupCodes())
        yield* refreshAccount(userActors, me.id)
        // As stored, so that this list and every later one show the codes in the same order.
        return yield* backupCodesOf(me.id)
      }),

    /**
     * Needs sudo mode and a current code. When the code is also the sudo proof
     * (`mfa_method: totp` with the same `mfa_code`) one check serves both: the
     * code cannot be checked twice, it is used up by the first.
     */
    disableTotp: (me: Me, payload: SudoProof & { readonly code: string }) =>
      Effect.gen(function*() {
        if ((yield* repo.state(me.id)).totpSecret === null) return yield* notEnabled("No authenticator app is set up")
        const held = yield* holdsSudo(me)
        if (!held) yield* sudo.require(me, payload)
        const provenBySudo = !held && payload.mfa_method === "totp" && payload.mfa_code !== undefined && sameCode(payload.mfa_code, payload.code)
        if (!provenBySudo && !(yield* mfa.verify(me.id, { mfa_method: "totp", mfa_code: payload.code }))) return yield* badCode()
        yield* repo.disableTotp(me.id)
        yield* refreshAccount(userActors, me.id)
      }),

    backupCodes: (me: Me, payload: SudoProof & { readonly regenerate?: boolean | undefined }) =>
      Effect.gen(function*() {
        yield* sudo.require(me, payload)
        const methods = methodsOf(yield* repo.state(me.id))
        if (!methods.totp && !methods.webauthn) return yield* notEnabled("Two-factor authentication is not enabled")
        const current = yield* repo.backupCodes(me.id)
        if (payload.regenerate === true || current.length === 0) yield* repo.replaceBackupCodes(me.id, newBackupCodes())
        return yield* backupCodesOf(me.id)
      }),

    /** SMS backs up TOTP, on the phone the user verified (POST /users/@me/phone/verify). */
    enableSms: (me: Me, payload: SudoProof) =>
      Effect.gen(function*() {
        const state = yield* repo.state(me.id)
        if (state.totpSecret === null) return yield* notEnabled("Set up an authenticator app before SMS codes")
        if (state.verifiedPhone === null) {
          return yield* new BadRequest({ code: "PHONE_VERIFICATION_REQUIRED", message: "Add and verify a phone number first" })
        }
        yield* sudo.require(me, payload)
        yield* repo.setSms(me.id, true)
      }),

    disableSms: (me: Me, payload: SudoProof) =>
      Effect.gen(function*() {
        yield* sudo.require(me, payload)
        yield* repo.setSms(me.id, false)
      }),

    credentials: (me: Me) =>
      Effect.map(repo.credentials(me.id), (list) =>
        list.map((c) => ({ id: c.credentialId, name: c.name, created_at: c.createdAt, last_used_at: c.lastUsedAt }))),

    registrationOptions: (me: Me, payload: SudoProof) =>
      Effect.gen(function*() {
        yield* sudo.require(me, payload)
        return yield* webauthn.registrationOptions(me.id)
      }),

    /** The challenge was handed out under sudo mode, to this user, once: it is the proof. */
    register: (me: Me, challenge: string, response: RegistrationResponse, name: string) =>
      Effect.tap(webauthn.register(me.id, challenge, response, name), () => refreshAccount(userActors, me.id)),

    rename: (me: Me, credentialId: string, payload: SudoProof & { readonly name: string }) =>
      Effect.gen(function*() {
        yield* sudo.require(me, payload)
        if (!(yield* repo.renameCredential(me.id, credentialId, payload.name))) return yield* unknown("WEBAUTHN_CREDENTIAL")
      }),

    remove: (me: Me, credentialId: string, payload: SudoProof) =>
      Effect.gen(function*() {
        yield* sudo.require(me, payload)
        if (!(yield* repo.deleteCredential(me.id, credentialId))) return yield* unknown("WEBAUTHN_CREDENTIAL")
        yield* refreshAccount(userActors, me.id)
      }),

    sudoMethods: (me: Me) =>
      Effect.map(mfa.methods(me.id), (m) => ({ totp: m.totp, sms: m.sms, webauthn: m.webauthn, has_mfa: m.totp || m.sms || m.webauthn })),

    sendSudoSms: (me: Me) => smsCodes.send(me.id, "sudo"),

    sudoWebAuthnOptions: (me: Me) => webauthn.authenticationOptions("sudo", me.id)
  }
})
