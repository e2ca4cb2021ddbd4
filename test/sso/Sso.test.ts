import { assert, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { expectError, field, TestApi } from "../support/Api.ts"
import { setAcls } from "../support/Acls.ts"
import { queryAt } from "../support/Postgres.ts"
import { REDIRECT_URI, TestIdp } from "./TestIdp.ts"

const asAdmin = (key: string) => `Admin ${key}`

/** Posts an SSO section to the instance config as the bootstrap operator; it must be accepted. */
const configure = (sso: Record<string, unknown>) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("POST", "/admin/instance-config/update", { token: asAdmin(api.adminKey), body: { sso } })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body
  })

/** The provider of TestIdp, allowing example.com, creating accounts. */
const standardSso = Effect.gen(function*() {
  const idp = yield* TestIdp
  return yield* configure({
    enabled: true,
    display_name: "Test IdP",
    issuer: idp.issuer,
    authorization_url: null,
    token_url: null,
    userinfo_url: null,
    jwks_url: null,
    client_id: idp.clientId,
    client_secret: idp.clientSecret,
    allowed_domains: ["example.com"],
    auto_provision: true,
    redirect_uri: REDIRECT_URI
  })
})

/** Start, sign in at the provider as `subject`, and come back: the code and state the client would hold. */
const throughProvider = (subject: string, start: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const idp = yield* TestIdp
    const started = yield* api.request("POST", "/auth/sso/start", { body: start })
    assert.strictEqual(started.status, 200, JSON.stringify(started.body))
    const back = yield* idp.signIn(field(started.body, "authorization_url"), subject)
    const code = back.searchParams.get("code")
    const state = back.searchParams.get("state")
    if (code === null || state === null) return yield* Effect.die(new Error(`no code in ${back.href}`))
    assert.strictEqual(state, field(started.body, "state"))
    return { code, state }
  })

const complete = (body: { code: string; state: string }) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    return yield* api.request("POST", "/auth/sso/complete", { body })
  })

const userCount = (databaseUrl: string, email: string) =>
  Effect.map(queryAt(databaseUrl, "SELECT count(*)::int AS n FROM users WHERE lower(email) = $1", [email]), (rows) => rows[0]?.n)

layer(Layer.merge(TestApi.layerWithOutside(), TestIdp.layer), { timeout: 120_000, excludeTestServices: true })("single sign-on", (it) => {
  it.effect("operators configure SSO; the secret is never returned; others may not", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const idp = yield* TestIdp
      const admin = asAdmin(api.adminKey)

      const initial = yield* api.request("POST", "/admin/instance-config/get", { token: admin, body: {} })
      assert.strictEqual(initial.status, 200)
      expect(initial.body).toMatchObject({ sso: { enabled: false, client_secret_set: false, allowed_domains: [], issuer: null } })
      const off = yield* api.request("GET", "/auth/sso/status")
      expect(off.body).toEqual({ enabled: false, enforced: false, display_name: null, redirect_uri: expect.stringContaining("/auth/sso/callback") })
      const startOff = yield* api.request("POST", "/auth/sso/start", { body: {} })
      expectError(startOff, 403, "FEATURE_TEMPORARILY_DISABLED")
      const completeOff = yield* complete({ code: "x", state: "y" })
      assert.strictEqual(completeOff.status, 403)

      // Nobody without the ACL, and nobody at all without credentials.
      const user = yield* api.register()
      const asUser = yield* api.request("POST", "/admin/instance-config/update", { token: user.token, body: { sso: { enabled: false } } })
      expectError(asUser, 403, "MISSING_PERMISSIONS")
      const anonymous = yield* api.request("POST", "/admin/instance-config/get", { body: {} })
      assert.strictEqual(anonymous.status, 401)
      yield* setAcls(user.userId, ["admin:authenticate", "instance:config:view"])
      const viewer = yield* api.request("POST", "/admin/instance-config/get", { token: user.token })
      assert.strictEqual(viewer.status, 200)
      const viewerUpdate = yield* api.request("POST", "/admin/instance-config/update", { token: user.token, body: { sso: { enabled: true } } })
      assert.strictEqual(viewerUpdate.status, 403)

      // Bad settings are refused field by field, and nothing is stored.
      const insecure = yield* api.request("POST", "/admin/instance-config/update", {
        token: admin,
        body: { sso: { issuer: "http://idp.example.com", allowed_domains: ["example.com", "*.example.com"] } }
      })
      assert.strictEqual(insecure.status, 400)
      expect(insecure.body).toMatchObject({
        code: "INVALID_FORM_BODY",
        errors: expect.arrayContaining([
          expect.objectContaining({ path: "sso.issuer", code: "INVALID_URL_FORMAT" }),
          expect.objectContaining({ path: "sso.allowed_domains.1", code: "INVALID_DOMAIN" })
        ])
      })
      const incomplete = yield* api.request("POST", "/admin/instance-config/update", { token: admin, body: { sso: { enabled: true } } })
      assert.strictEqual(incomplete.status, 400)
      expect(incomplete.body).toMatchObject({ errors: expect.arrayContaining([expect.objectContaining({ path: "sso.issuer" })]) })
      const wrongType = yield* api.request("POST", "/admin/instance-config/update", { token: admin, body: { sso: { enabled: "yes" } } })
      assert.strictEqual(wrongType.status, 400)
      const tooLong = yield* api.request("POST", "/admin/instance-config/update", { token: admin, body: { sso: { client_id: "x".repeat(300) } } })
      assert.strictEqual(tooLong.status, 400)

      const saved = yield* configure({
        enabled: true,
        display_name: "Test IdP",
        issuer: idp.issuer,
        client_id: idp.clientId,
        client_secret: idp.clientSecret,
        allowed_domains: [" EXAMPLE.com ", "example.com"],
        auto_provision: true,
        redirect_uri: REDIRECT_URI
      })
      expect(saved).toMatchObject({
        sso: { enabled: true, client_secret_set: true, allowed_domains: ["example.com"], client_id: idp.clientId, issuer: idp.issuer }
      })
      assert.notInclude(JSON.stringify(saved), idp.clientSecret)
      // An empty secret from a form that does not show it keeps the stored one.
      const kept = yield* configure({ client_secret: "" })
      expect(kept).toMatchObject({ sso: { client_secret_set: true } })
      const read = yield* api.request("POST", "/admin/instance-config/get", { token: admin })
      expect(read.body).toMatchObject({ sso: { enabled: true, client_secret_set: true, redirect_uri: REDIRECT_URI } })
      assert.notInclude(JSON.stringify(read.body), idp.clientSecret)

      const logs = yield* api.request("POST", "/admin/audit-logs/search", { token: admin, body: { target_id: "sso" } })
      expect(logs.body).toMatchObject({ logs: expect.arrayContaining([expect.objectContaining({ action: "instance_config.update", target_type: "instance_config" })]) })
      assert.notInclude(JSON.stringify(logs.body), idp.clientSecret)

      const on = yield* api.request("GET", "/auth/sso/status")
      expect(on.body).toEqual({ enabled: true, enforced: false, display_name: "Test IdP", redirect_uri: REDIRECT_URI })
      yield* configure({ enforced: true })
      const enforced = yield* api.request("GET", "/auth/sso/status")
      expect(enforced.body).toMatchObject({ enabled: true, enforced: true })
      // Enforced: a right password no longer signs a person in, a wrong one still says only that.
      const person = yield* api.register()
      const refused = yield* api.request("POST", "/auth/login", { body: { email: person.email, password: "correct horse battery" } })
      expect(refused).toMatchObject({ status: 403, body: { code: "SSO_REQUIRED" } })
      const wrong = yield* api.request("POST", "/auth/login", { body: { email: person.email, password: "not the password" } })
      expect(wrong).toMatchObject({ status: 400, body: { code: "INVALID_FORM_BODY" } })
      yield* configure({ enforced: false })
      const allowed = yield* api.request("POST", "/auth/login", { body: { email: person.email, password: "correct horse battery" } })
      assert.strictEqual(allowed.status, 200)
    }))

  it.effect("a provider that cannot be reached is a retryable 503", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      yield* standardSso
      // Nothing listens on port 1.
      yield* configure({ issuer: "http://127.0.0.1:1" })
      const started = yield* api.request("POST", "/auth/sso/start", { body: {} })
      expectError(started, 503, "SERVICE_UNAVAILABLE")
    }))

  it.effect("the whole flow against a real provider creates the account, then signs it in again", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      yield* standardSso
      const started = yield* api.request("POST", "/auth/sso/start", { body: { redirect_to: "/channels/@me" } })
      assert.strictEqual(started.status, 200)
      const authorizationUrl = new URL(field(started.body, "authorization_url"))
      assert.strictEqual(authorizationUrl.searchParams.get("code_challenge_method"), "S256")
      assert.isNotNull(authorizationUrl.searchParams.get("code_challenge"))
      assert.isNotNull(authorizationUrl.searchParams.get("nonce"))
      assert.strictEqual(authorizationUrl.searchParams.get("state"), field(started.body, "state"))
      assert.strictEqual(authorizationUrl.searchParams.get("redirect_uri"), REDIRECT_URI)
      assert.strictEqual(field(started.body, "redirect_uri"), REDIRECT_URI)

      const idp = yield* TestIdp
      const back = yield* idp.signIn(authorizationUrl.href, "alice-sub")
      const body = { code: back.searchParams.get("code") ?? "", state: back.searchParams.get("state") ?? "" }
      const done = yield* complete(body)
      assert.strictEqual(done.status, 200, JSON.stringify(done.body))
      expect(done.body).toMatchObject({ redirect_to: "/channels/@me", user: { username: "Alice_Liddell" } })
      const token = field(done.body, "token")
      const userId = field(done.body, "user_id")

      const me = yield* api.request("GET", "/users/@me", { token })
      assert.strictEqual(me.status, 200)
      expect(me.body).toMatchObject({ id: userId, email: "alice@example.com", verified: true })
      const [row] = yield* queryAt(api.databaseUrl, "SELECT password_hash, email_verified FROM users WHERE id = $1", [userId])
      expect(row).toEqual({ password_hash: null, email_verified: true })

      // The state works once.
      const replay = yield* complete(body)
      assert.strictEqual(replay.status, 400)
      expect(replay.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "state", code: "INVALID_OR_EXPIRED_SSO_STATE" }] })

      const again = yield* complete(yield* throughProvider("alice-sub"))
      assert.strictEqual(again.status, 200)
      assert.strictEqual(field(again.body, "user_id"), userId)
      // Without redirect_to, and with one to another site, the client stays here.
      assert.strictEqual(field(again.body, "redirect_to"), "")
      const offsite = yield* complete(yield* throughProvider("alice-sub", { redirect_to: "https://evil.example/phish" }))
      assert.strictEqual(field(offsite.body, "redirect_to"), "")
      assert.strictEqual(yield* userCount(api.databaseUrl, "alice@example.com"), 1)
    }))

  it.effect("a wrong state, a wrong code and bad bodies are refused", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      yield* standardSso
      const { code, state } = yield* throughProvider("alice-sub")
      const wrongState = yield* complete({ code, state: "not-a-state" })
      assert.strictEqual(wrongState.status, 400)
      expect(wrongState.body).toMatchObject({ errors: [{ path: "state", code: "INVALID_OR_EXPIRED_SSO_STATE" }] })

      const wrongCode = yield* complete({ code: "forged-code", state })
      assert.strictEqual(wrongCode.status, 400)
      expect(wrongCode.body).toMatchObject({ errors: [{ path: "code", code: "INVALID_SSO_AUTHORIZATION_CODE" }] })
      // That state is used up now, even with the right code.
      const late = yield* complete({ code, state })
      assert.strictEqual(late.status, 400)

      const empty = yield* complete({ code: "", state: "x" })
      expectError(empty, 400, "INVALID_FORM_BODY")
      const missing = yield* api.request("POST", "/auth/sso/complete", { body: { code: "x" } })
      assert.strictEqual(missing.status, 400)
      const longRedirect = yield* api.request("POST", "/auth/sso/start", { body: { redirect_to: `/${"a".repeat(2100)}` } })
      assert.strictEqual(longRedirect.status, 400)
      const otherRedirectUri = yield* api.request("POST", "/auth/sso/start", { body: { redirect_uri: "https://evil.example/cb" } })
      assert.strictEqual(otherRedirectUri.status, 400)
      expect(otherRedirectUri.body).toMatchObject({ errors: [{ path: "redirect_uri" }] })
      const noBody = yield* api.request("POST", "/auth/sso/start")
      assert.strictEqual(noBody.status, 200, JSON.stringify(noBody.body))
    }))

  it.effect("a domain that is not allowed, an unverified email and a second identity for a linked account are refused", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      yield* standardSso
      const outsider = yield* complete(yield* throughProvider("mallory-sub"))
      assert.strictEqual(outsider.status, 400)
      expect(outsider.body).toMatchObject({ errors: [{ path: "email", code: "EMAIL_DOMAIN_NOT_ALLOWED_FOR_SSO" }] })
      assert.strictEqual(yield* userCount(api.databaseUrl, "mallory@evil.test"), 0)

      const unverified = yield* complete(yield* throughProvider("unverified-sub"))
      assert.strictEqual(unverified.status, 400)
      expect(unverified.body).toMatchObject({ errors: [{ path: "email_verified", code: "INVALID_SSO_TOKEN" }] })
      assert.strictEqual(yield* userCount(api.databaseUrl, "unverified@example.com"), 0)

      // Alice's account is linked to her identity; a second identity with her address cannot take it over.
      const alice = yield* complete(yield* throughProvider("alice-sub"))
      assert.strictEqual(alice.status, 200)
      const impostor = yield* complete(yield* throughProvider("impostor-sub"))
      assert.strictEqual(impostor.status, 400)
      expect(impostor.body).toMatchObject({ errors: [{ path: "sub", code: "SSO_IDENTITY_MISMATCH" }] })
    }))

  it.effect("without auto-provisioning an unknown person is refused and an existing account is linked", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      yield* standardSso
      yield* configure({ auto_provision: false })
      const unknownPerson = yield* complete(yield* throughProvider("carol-sub"))
      expectError(unknownPerson, 403, "SSO_REQUIRED")
      assert.strictEqual(yield* userCount(api.databaseUrl, "carol@example.com"), 0)

      // Carol registers with a password; her first SSO login links the provider identity to that account.
      const carol = yield* api.register({ email: "carol@example.com" })
      const linked = yield* complete(yield* throughProvider("carol-sub"))
      assert.strictEqual(linked.status, 200, JSON.stringify(linked.body))
      assert.strictEqual(field(linked.body, "user_id"), carol.userId)
      const links = yield* queryAt(api.databaseUrl, "SELECT subject FROM sso_identities WHERE user_id = $1", [carol.userId])
      expect(links).toEqual([{ subject: "carol-sub" }])
      const me = yield* api.request("GET", "/users/@me", { token: field(linked.body, "token") })
      expect(me.body).toMatchObject({ id: carol.userId })
    }))

  it.effect("an ID token that does not match the provider's keys is refused", () =>
    Effect.gen(function*() {
      const idp = yield* TestIdp
      yield* standardSso
      // Endpoints given explicitly (no discovery), with the JWKS of a key the provider does not sign with.
      yield* configure({
        authorization_url: `${idp.issuer}/auth`,
        token_url: `${idp.issuer}/token`,
        userinfo_url: `${idp.issuer}/me`,
        jwks_url: idp.wrongJwksUrl
      })
      const forged = yield* complete(yield* throughProvider("alice-sub"))
      assert.strictEqual(forged.status, 400)
      expect(forged.body).toMatchObject({ errors: [{ path: "id_token", code: "INVALID_SSO_TOKEN" }] })

      yield* configure({ jwks_url: `${idp.issuer}/jwks` })
      const genuine = yield* complete(yield* throughProvider("alice-sub"))
      assert.strictEqual(genuine.status, 200, JSON.stringify(genuine.body))
    }))
})
