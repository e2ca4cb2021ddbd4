import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { generateSecret, generateSync } from "otplib"
import { field, type Reply, TestApi } from "../support/Api.ts"
import { SoftwareAuthenticator } from "../support/SoftwareAuthenticator.ts"

/*
 * What the MFA tests share: TOTP codes computed from the secret the way an
 * authenticator app does, and the few steps most scenarios start with.
 */

export const PASSWORD = "correct horse battery"
export const SUDO_HEADER = "x-service-sudo-mode-jwt"

/** The TOTP time step of now (30 s). */
export const stepNow = () => Math.floor(Date.now() / 30_000)

/** The code of `secret` for time step `step`: the server accepts the current step ±1, each step once. */
export const totpAt = (secret: string, step: number) => generateSync({ secret, epoch: step * 30, period: 30, digits: 6, algorithm: "sha1" })

export const newSecret = () => generateSecret()

/** The error entries of a 400 body, for asserting on one field's code. */
export const errorsOf = (reply: Reply): ReadonlyArray<{ path?: unknown; code?: unknown }> => {
  const body = reply.body
  if (typeof body !== "object" || body === null || !("errors" in body) || !Array.isArray(body.errors)) return []
  return body.errors
}

/** The sudo token a reply handed back, or a failed test. */
export const sudoTokenOf = (reply: Reply): string => {
  const token = reply.headers.get(SUDO_HEADER)
  if (token === null) throw new Error(`no ${SUDO_HEADER} header in ${reply.status} ${JSON.stringify(reply.body)}`)
  return token
}

export interface TotpUser {
  readonly token: string
  readonly userId: string
  readonly email: string
  readonly secret: string
  /** The step whose code enabled TOTP: it is used up. */
  readonly usedStep: number
  readonly backupCodes: ReadonlyArray<string>
  /** The sudo token the enabling (with the password) handed back. */
  readonly sudo: string
}

/** A fresh user with TOTP on, enabled with the password as the sudo proof. */
export const userWithTotp = Effect.gen(function*() {
  const api = yield* TestApi
  const user = yield* api.register()
  const secret = newSecret()
  const usedStep = stepNow()
  const enabled = yield* api.request("POST", "/users/@me/mfa/totp/enable", {
    token: user.token,
    body: { secret, code: totpAt(secret, usedStep), password: PASSWORD }
  })
  assert.strictEqual(enabled.status, 200, JSON.stringify(enabled.body))
  const codes = (enabled.body as { backup_codes: Array<{ code: string; consumed: boolean }> }).backup_codes
  return { ...user, secret, usedStep, backupCodes: codes.map((c) => c.code), sudo: sudoTokenOf(enabled) } satisfies TotpUser
})

/** `/auth/login` for a user with MFA: the ticket (asserting that no token came with it). */
export const mfaTicket = (email: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const login = yield* api.request("POST", "/auth/login", { body: { email, password: PASSWORD } })
    assert.strictEqual(login.status, 200, JSON.stringify(login.body))
    assert.notProperty(login.body, "token")
    return { ticket: field(login.body, "ticket"), body: login.body }
  })

/** Every endpoint of the MFA enrollment and sudo routes, for the 401 checks. */
export const AUTHENTICATED_ROUTES: ReadonlyArray<readonly [string, string]> = [
  ["POST", "/users/@me/mfa/totp/enable"],
  ["POST", "/users/@me/mfa/totp/disable"],
  ["POST", "/users/@me/mfa/backup-codes"],
  ["POST", "/users/@me/mfa/sms/enable"],
  ["POST", "/users/@me/mfa/sms/disable"],
  ["GET", "/users/@me/mfa/webauthn/credentials"],
  ["POST", "/users/@me/mfa/webauthn/credentials"],
  ["POST", "/users/@me/mfa/webauthn/credentials/registration-options"],
  ["PATCH", "/users/@me/mfa/webauthn/credentials/abc"],
  ["DELETE", "/users/@me/mfa/webauthn/credentials/abc"],
  ["GET", "/users/@me/sudo/mfa-methods"],
  ["POST", "/users/@me/sudo/mfa/sms/send"],
  ["POST", "/users/@me/sudo/webauthn/authentication-options"]
]

/** A security key registered to the user `token` under `name`, with the id the server gave it. */
export const addSecurityKey = (token: string, name: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const key = new SoftwareAuthenticator()
    const options = yield* api.request("POST", "/users/@me/mfa/webauthn/credentials/registration-options", {
      token,
      body: { password: PASSWORD }
    })
    assert.strictEqual(options.status, 200, JSON.stringify(options.body))
    const created = yield* api.request("POST", "/users/@me/mfa/webauthn/credentials", {
      token,
      body: { response: key.register(options.body), challenge: field(options.body, "challenge"), name },
      headers: { [SUDO_HEADER]: options.headers.get(SUDO_HEADER) ?? "" }
    })
    assert.strictEqual(created.status, 204, JSON.stringify(created.body))
    const listed = yield* api.request("GET", "/users/@me/mfa/webauthn/credentials", { token })
    const entry: unknown = Array.isArray(listed.body) ? listed.body.find((c: unknown) => field(c, "name") === name) : undefined
    return { key, id: field(entry, "id") }
  })
