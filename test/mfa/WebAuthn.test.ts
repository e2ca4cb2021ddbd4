import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { generateKeyPairSync, randomBytes } from "node:crypto"
import { expectError, field, type Reply, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"
import { SoftwareAuthenticator } from "../support/SoftwareAuthenticator.ts"
import { errorsOf, mfaTicket, PASSWORD, SUDO_HEADER, sudoTokenOf } from "./Support.ts"

interface Credential {
  readonly id: string
  readonly name: string
  readonly created_at: string
  readonly last_used_at: string | null
}

const challengeOf = (reply: Reply) => field(reply.body, "challenge")

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("WebAuthn over HTTP", (it) => {
  const credentials = (token: string) =>
    Effect.flatMap(TestApi, (api) =>
      Effect.map(api.request("GET", "/users/@me/mfa/webauthn/credentials", { token }), (reply) => {
        assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
        return reply.body as ReadonlyArray<Credential>
      }))

  const storedCounter = (credentialId: string) =>
    Effect.flatMap(TestApi, (api) =>
      Effect.map(queryAt(api.databaseUrl, "SELECT counter FROM webauthn_credentials WHERE credential_id = $1", [credentialId]), (rows) =>
        Number(rows[0]?.counter)))

  /** Registration options (with `sudo` as the proof), then the authenticator's attestation for them. */
  const register = (token: string, key: SoftwareAuthenticator, name: string, sudo: Record<string, unknown> | string) =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const options = yield* api.request("POST", "/users/@me/mfa/webauthn/credentials/registration-options", {
        token,
        ...(typeof sudo === "string" ? { headers: { [SUDO_HEADER]: sudo } } : { body: sudo })
      })
      assert.strictEqual(options.status, 200, JSON.stringify(options.body))
      const created = yield* api.request("POST", "/users/@me/mfa/webauthn/credentials", {
        token,
        body: { response: key.register(options.body), challenge: challengeOf(options), name }
      })
      assert.strictEqual(created.status, 204, JSON.stringify(created.body))
      return { options, sudo: options.headers.get(SUDO_HEADER) ?? (typeof sudo === "string" ? sudo : "") }
    })

  /** A login with the password, then the key as its second step: the reply. */
  const loginWithKey = (email: string, key: SoftwareAuthenticator, sign: { origin?: string } = {}) =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { ticket } = yield* mfaTicket(email)
      const options = yield* api.request("POST", "/auth/login/mfa/webauthn/authentication-options", { body: { ticket } })
      assert.strictEqual(options.status, 200, JSON.stringify(options.body))
      return yield* api.request("POST", "/auth/login/mfa/webauthn", {
        body: { ticket, challenge: challengeOf(options), response: key.authenticate(options.body, sign) }
      })
    })

  it.effect("a key registered under sudo mode is a second factor, and its signature counter must rise", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* api.register()
      const refused = yield* api.request("POST", "/users/@me/mfa/webauthn/credentials/registration-options", { token: user.token })
      assert.strictEqual(refused.status, 403)
      expect(refused.body).toMatchObject({ code: "SUDO_MODE_REQUIRED", has_mfa: false })

      const key = new SoftwareAuthenticator()
      const clone = key.clone()
      const { options, sudo } = yield* register(user.token, key, "Laptop", { password: PASSWORD })
      expect(options.body).toMatchObject({ rp: { id: "localhost" }, user: { name: user.email }, excludeCredentials: [] })
      assert.strictEqual(Buffer.from(key.userHandle ?? "", "base64url").toString("utf8"), user.userId)

      // A registration challenge works once.
      const replay = yield* api.request("POST", "/users/@me/mfa/webauthn/credentials", {
        token: user.token,
        body: { response: new SoftwareAuthenticator().register(options.body), challenge: challengeOf(options), name: "Second" }
      })
      expectError(replay, 400, "INVALID_WEBAUTHN_CREDENTIAL")

      const listed = yield* credentials(user.token)
      assert.lengthOf(listed, 1)
      expect(listed[0]).toMatchObject({ id: key.id, name: "Laptop", last_used_at: null })
      assert.isFalse(Number.isNaN(Date.parse(listed[0]?.created_at ?? "")))
      const methods = yield* api.request("GET", "/users/@me/sudo/mfa-methods", { token: user.token })
      assert.deepStrictEqual(methods.body, { totp: false, sms: false, webauthn: true, has_mfa: true })

      const { body, ticket } = yield* mfaTicket(user.email)
      expect(body).toMatchObject({ mfa: true, webauthn: true, totp: false, sms: false, allowed_methods: ["backup", "webauthn"] })

      // Without TOTP, a backup code still signs in, through the TOTP step.
      const codes = yield* api.request("POST", "/users/@me/mfa/backup-codes", { token: user.token, body: {}, headers: { [SUDO_HEADER]: sudo } })
      assert.strictEqual(codes.status, 200, JSON.stringify(codes.body))
      const backupCode = (codes.body as { backup_codes: Array<{ code: string }> }).backup_codes[0]?.code ?? ""
      const byBackup = yield* api.request("POST", "/auth/login/mfa/totp", { body: { ticket, code: backupCode } })
      assert.strictEqual(byBackup.status, 200, JSON.stringify(byBackup.body))
      const loggedIn = yield* loginWithKey(user.email, key)
      assert.strictEqual(loggedIn.status, 200, JSON.stringify(loggedIn.body))
      assert.strictEqual(field(loggedIn.body, "user_id"), user.userId)
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token: field(loggedIn.body, "token") })).status, 200)
      assert.strictEqual(yield* storedCounter(key.id), 1)
      assert.isNotNull((yield* credentials(user.token))[0]?.last_used_at)

      // A copy of the key that lags behind the real one is refused.
      const cloned = yield* loginWithKey(user.email, clone)
      expectError(cloned, 400, "INVALID_WEBAUTHN_AUTHENTICATION_COUNTER")
      assert.strictEqual(yield* storedCounter(key.id), 1)

      // Signed for another origin: refused, and the counter stays.
      const phished = yield* loginWithKey(user.email, key, { origin: "https://guildhall.example.net" })
      expectError(phished, 400, "INVALID_WEBAUTHN_CREDENTIAL")

      const again = yield* loginWithKey(user.email, key)
      assert.strictEqual(again.status, 200, JSON.stringify(again.body))
      assert.strictEqual(yield* storedCounter(key.id), key.counter)
      assert.strictEqual(key.counter, 3)

      // A login challenge is the user's (any of their tickets may take it) and works once.
      const first = yield* mfaTicket(user.email)
      const second = yield* mfaTicket(user.email)
      const opts = yield* api.request("POST", "/auth/login/mfa/webauthn/authentication-options", { body: { ticket: first.ticket } })
      const assertion = key.authenticate(opts.body)
      const done = yield* api.request("POST", "/auth/login/mfa/webauthn", { body: { ticket: second.ticket, challenge: challengeOf(opts), response: assertion } })
      assert.strictEqual(done.status, 200, JSON.stringify(done.body))
      const reused = yield* api.request("POST", "/auth/login/mfa/webauthn", { body: { ticket: first.ticket, challenge: challengeOf(opts), response: key.authenticate(opts.body) } })
      expectError(reused, 400, "INVALID_WEBAUTHN_CREDENTIAL")
    }))

  it.effect("a discoverable credential signs in without the password", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* api.register()
      const key = new SoftwareAuthenticator()
      yield* register(user.token, key, "Phone", { password: PASSWORD })

      const options = yield* api.request("POST", "/auth/webauthn/authentication-options")
      assert.strictEqual(options.status, 200, JSON.stringify(options.body))
      expect(options.body).toMatchObject({ rpId: "localhost", userVerification: "required" })
      assert.notProperty(options.body, "allowCredentials")
      const signedIn = yield* api.request("POST", "/auth/webauthn/authenticate", {
        body: { challenge: challengeOf(options), response: key.authenticate(options.body) }
      })
      assert.strictEqual(signedIn.status, 200, JSON.stringify(signedIn.body))
      assert.strictEqual(field(signedIn.body, "user_id"), user.userId)
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token: field(signedIn.body, "token") })).status, 200)
      assert.strictEqual(yield* storedCounter(key.id), 1)

      const twice = yield* api.request("POST", "/auth/webauthn/authenticate", {
        body: { challenge: challengeOf(options), response: key.authenticate(options.body) }
      })
      expect(twice.body).toMatchObject({ code: "INVALID_WEBAUTHN_CREDENTIAL" })

      const fresh = () => api.request("POST", "/auth/webauthn/authentication-options")
      // Without a password the key must have verified the person, not only their presence.
      const presenceOnly = yield* fresh()
      const unverified = yield* api.request("POST", "/auth/webauthn/authenticate", {
        body: { challenge: challengeOf(presenceOnly), response: key.authenticate(presenceOnly.body, { userVerified: false }) }
      })
      expect(unverified.body).toMatchObject({ code: "INVALID_WEBAUTHN_CREDENTIAL" })
      const stranger = yield* fresh()
      const unknownKey = yield* api.request("POST", "/auth/webauthn/authenticate", {
        body: { challenge: challengeOf(stranger), response: new SoftwareAuthenticator().authenticate(stranger.body) }
      })
      expect(unknownKey.body).toMatchObject({ code: "INVALID_WEBAUTHN_CREDENTIAL" })
      // A challenge handed out for a login's second step does not sign in on its own.
      const { ticket } = yield* mfaTicket(user.email)
      const mfaOptions = yield* api.request("POST", "/auth/login/mfa/webauthn/authentication-options", { body: { ticket } })
      const wrongPurpose = yield* api.request("POST", "/auth/webauthn/authenticate", {
        body: { challenge: challengeOf(mfaOptions), response: key.authenticate(mfaOptions.body) }
      })
      expect(wrongPurpose.body).toMatchObject({ code: "INVALID_WEBAUTHN_CREDENTIAL" })

      const last = yield* fresh()
      const again = yield* api.request("POST", "/auth/webauthn/authenticate", { body: { challenge: challengeOf(last), response: key.authenticate(last.body) } })
      assert.strictEqual(again.status, 200, JSON.stringify(again.body))
      assert.strictEqual(yield* storedCounter(key.id), key.counter)
    }))

  it.effect("renaming and deleting keys need sudo mode, which the key itself can prove", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* api.register()
      const mfaShown = Effect.map(api.request("GET", "/users/@me", { token: user.token }), (reply) => reply.body)
      expect(yield* mfaShown).toMatchObject({ mfa_enabled: false, authenticator_types: [] })
      const key = new SoftwareAuthenticator()
      yield* register(user.token, key, "Laptop", { password: PASSWORD })
      expect(yield* mfaShown).toMatchObject({ mfa_enabled: true, authenticator_types: [2] })
      const credential = `/users/@me/mfa/webauthn/credentials/${key.id}`

      const byPassword = yield* api.request("PATCH", credential, { token: user.token, body: { name: "Work laptop", password: PASSWORD } })
      assert.strictEqual(byPassword.status, 403)
      expect(byPassword.body).toMatchObject({ code: "SUDO_MODE_REQUIRED", has_mfa: true })

      const sudoOptions = () => api.request("POST", "/users/@me/sudo/webauthn/authentication-options", { token: user.token })
      const forged = yield* sudoOptions()
      const tampered = key.authenticate(forged.body)
      const badProof = yield* api.request("PATCH", credential, {
        token: user.token,
        body: {
          name: "Work laptop",
          mfa_method: "webauthn",
          webauthn_challenge: challengeOf(forged),
          webauthn_response: { ...tampered, response: { ...tampered.response, signature: Buffer.alloc(70, 1).toString("base64url") } }
        }
      })
      expect(badProof.body).toMatchObject({ errors: [{ path: "mfa_code", code: "INVALID_MFA_CODE" }] })

      const options = yield* sudoOptions()
      assert.strictEqual(options.status, 200, JSON.stringify(options.body))
      expect(options.body).toMatchObject({ allowCredentials: [{ id: key.id }] })
      const renamed = yield* api.request("PATCH", credential, {
        token: user.token,
        body: { name: "Work laptop", mfa_method: "webauthn", webauthn_challenge: challengeOf(options), webauthn_response: key.authenticate(options.body) }
      })
      assert.strictEqual(renamed.status, 204, JSON.stringify(renamed.body))
      const sudo = sudoTokenOf(renamed)
      expect((yield* credentials(user.token))[0]).toMatchObject({ id: key.id, name: "Work laptop" })
      assert.strictEqual(yield* storedCounter(key.id), key.counter)

      // A second key, registered with the sudo token; the options exclude the first.
      const spare = new SoftwareAuthenticator()
      const second = yield* register(user.token, spare, "Spare", sudo)
      expect(second.options.body).toMatchObject({ excludeCredentials: [{ id: key.id }] })
      assert.deepStrictEqual((yield* credentials(user.token)).map((c) => c.name), ["Work laptop", "Spare"])

      // Keys with long ids (here 200 bytes) are named in the path like any other.
      const longKey = new SoftwareAuthenticator(undefined, undefined, { credentialId: randomBytes(200), ...generateKeyPairSync("ec", { namedCurve: "P-256" }) })
      yield* register(user.token, longKey, "Long", sudo)
      const longRenamed = yield* api.request("PATCH", `/users/@me/mfa/webauthn/credentials/${longKey.id}`, { token: user.token, body: { name: "Long id" }, headers: { [SUDO_HEADER]: sudo } })
      assert.strictEqual(longRenamed.status, 204, JSON.stringify(longRenamed.body))
      assert.strictEqual((yield* api.request("DELETE", `/users/@me/mfa/webauthn/credentials/${longKey.id}`, { token: user.token, headers: { [SUDO_HEADER]: sudo } })).status, 204)

      const unknownKey = yield* api.request("PATCH", "/users/@me/mfa/webauthn/credentials/bm90LWEta2V5", { token: user.token, body: { name: "x" }, headers: { [SUDO_HEADER]: sudo } })
      expectError(unknownKey, 404, "UNKNOWN_WEBAUTHN_CREDENTIAL")
      // Another account cannot touch them, even in sudo mode.
      const other = yield* api.register()
      const theirs = yield* api.request("DELETE", credential, { token: other.token, body: { password: PASSWORD } })
      expectError(theirs, 404, "UNKNOWN_WEBAUTHN_CREDENTIAL")

      const noSudo = yield* api.request("DELETE", credential, { token: user.token })
      assert.strictEqual(noSudo.status, 403)
      expect(noSudo.body).toMatchObject({ code: "SUDO_MODE_REQUIRED", has_mfa: true })
      const deleted = yield* api.request("DELETE", credential, { token: user.token, headers: { [SUDO_HEADER]: sudo } })
      assert.strictEqual(deleted.status, 204, JSON.stringify(deleted.body))
      assert.deepStrictEqual((yield* credentials(user.token)).map((c) => c.id), [spare.id])
      const gone = yield* loginWithKey(user.email, key)
      expect(gone.body).toMatchObject({ code: "INVALID_WEBAUTHN_CREDENTIAL" })

      assert.strictEqual((yield* api.request("DELETE", `/users/@me/mfa/webauthn/credentials/${spare.id}`, { token: user.token, headers: { [SUDO_HEADER]: sudo } })).status, 204)
      const methods = yield* api.request("GET", "/users/@me/sudo/mfa-methods", { token: user.token })
      assert.deepStrictEqual(methods.body, { totp: false, sms: false, webauthn: false, has_mfa: false })
      expect(yield* mfaShown).toMatchObject({ mfa_enabled: false, authenticator_types: [] })
      const login = yield* api.request("POST", "/auth/login", { body: { email: user.email, password: PASSWORD } })
      assert.isString(field(login.body, "token"))
      const noKeys = yield* sudoOptions()
      expect(noKeys.body).toMatchObject({ code: "TWO_FA_NOT_ENABLED" })
    }))

  it.effect("refuses bad input", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const key = new SoftwareAuthenticator()
      const options = yield* api.request("POST", "/users/@me/mfa/webauthn/credentials/registration-options", { token, body: { password: PASSWORD } })
      const sudo = sudoTokenOf(options)
      const response = key.register(options.body)
      const challenge = challengeOf(options)
      const create = (body: unknown) => api.request("POST", "/users/@me/mfa/webauthn/credentials", { token, body })
      const invalid: ReadonlyArray<readonly [unknown, string]> = [
        [{ challenge, name: "Key" }, "response"],
        [{ response, name: "Key" }, "challenge"],
        [{ response, challenge }, "name"],
        [{ response, challenge, name: "" }, "name"],
        [{ response, challenge, name: "k".repeat(101) }, "name"],
        [{ response: { ...response, type: "private-key" }, challenge, name: "Key" }, "response"],
        [{ response: { ...response, id: "not base64url!" }, challenge, name: "Key" }, "response"],
        [{ response: { ...response, response: { ...response.response, attestationObject: "A".repeat(70_000) } }, challenge, name: "Key" }, "response"]
      ]
      for (const [body, bad] of invalid) {
        const reply = yield* create(body)
        assert.strictEqual(reply.status, 400, JSON.stringify(reply.body))
        expect(reply.body).toMatchObject({ code: "INVALID_FORM_BODY" })
        assert.include(errorsOf(reply).map((e) => String(e.path).split(".")[0]), bad)
      }
      // None of that used the challenge up; a made-up one is refused.
      const madeUp = yield* create({ response, challenge: "bm90LWEtY2hhbGxlbmdl", name: "Key" })
      expect(madeUp.body).toMatchObject({ code: "INVALID_WEBAUTHN_CREDENTIAL" })
      // Clients that send the sudo proof along with the attestation are served too.
      const created = yield* create({ response, challenge, name: "Key", mfa_method: "totp", mfa_code: "123456" })
      assert.strictEqual(created.status, 204, JSON.stringify(created.body))

      const patch = (name: unknown) =>
        api.request("PATCH", `/users/@me/mfa/webauthn/credentials/${key.id}`, { token, body: { name }, headers: { [SUDO_HEADER]: sudo } })
      for (const name of ["", "n".repeat(101), 5, null]) {
        const reply = yield* patch(name)
        assert.strictEqual(reply.status, 400, JSON.stringify(name))
        assert.include(errorsOf(reply).map((e) => e.path), "name")
      }
      // Ids up to 1023 bytes (1364 characters) are ids; longer is bad input.
      const longId = yield* api.request("DELETE", `/users/@me/mfa/webauthn/credentials/${"a".repeat(1364)}`, { token, headers: { [SUDO_HEADER]: sudo } })
      expectError(longId, 404, "UNKNOWN_WEBAUTHN_CREDENTIAL")
      const tooLong = yield* api.request("DELETE", `/users/@me/mfa/webauthn/credentials/${"a".repeat(1365)}`, { token, headers: { [SUDO_HEADER]: sudo } })
      expectError(tooLong, 400, "INVALID_FORM_BODY")

      const badSudo = yield* api.request("DELETE", `/users/@me/mfa/webauthn/credentials/${key.id}`, { token, body: { password: 5 } })
      assert.strictEqual(badSudo.status, 400)
      assert.include(errorsOf(badSudo).map((e) => e.path), "password")

      const signIn = yield* api.request("POST", "/auth/webauthn/authenticate", { body: { challenge: "x", response: { id: key.id } } })
      expectError(signIn, 400, "INVALID_FORM_BODY")
      const user = yield* api.register()
      const noTicket = yield* api.request("POST", "/auth/login/mfa/webauthn/authentication-options", { body: { ticket: "not-a-ticket" } })
      expect(noTicket.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_TICKET" }] })
      const noKeys = yield* api.request("POST", "/users/@me/sudo/webauthn/authentication-options", { token: user.token })
      expect(noKeys.body).toMatchObject({ code: "TWO_FA_NOT_ENABLED" })
    }))
})
