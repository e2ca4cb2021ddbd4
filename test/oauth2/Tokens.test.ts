import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { expectError, field, TestApi } from "../support/Api.ts"
import { createApplication } from "./Fixtures.ts"

const REDIRECT = "https://client.example/callback"

/** A form body, as OAuth2 clients send it (RFC 6749). */
const form = (fields: Record<string, string>) => ({
  rawBody: new URLSearchParams(fields).toString(),
  headers: { "content-type": "application/x-www-form-urlencoded" }
})

/** A multipart body, which the reference names for the token endpoints. */
const multipart = (fields: Record<string, string>) => {
  const boundary = "guildhall-test-boundary"
  const parts = Object.entries(fields).map(([name, value]) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
  return {
    rawBody: `${parts.join("")}--${boundary}--\r\n`,
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` }
  }
}

/** The code in a consent's redirect, after checking where it sends the user. */
const codeOf = (redirectTo: unknown, state: string) => {
  const url = new URL(String(redirectTo))
  assert.strictEqual(`${url.origin}${url.pathname}`, REDIRECT)
  assert.strictEqual(url.searchParams.get("state"), state)
  return url.searchParams.get("code") ?? ""
}

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("OAuth2 authorization codes and tokens over HTTP", (it) => {
  it.effect("consent issues a code; the token endpoint exchanges it once; the access token reads @me and userinfo", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const developer = yield* api.register()
      const user = yield* api.register()
      const app = yield* createApplication(developer.token, { name: "Reader", redirect_uris: [REDIRECT] })
      const consent = yield* api.request("POST", "/oauth2/authorize/consent", {
        token: user.token,
        body: { client_id: app.id, scope: "email identify", redirect_uri: REDIRECT, state: "s1", response_type: "code" }
      })
      assert.strictEqual(consent.status, 200, JSON.stringify(consent.body))
      const code = codeOf(field(consent.body, "redirect_to"), "s1")

      const exchange = { grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: app.id, client_secret: app.clientSecret }
      expectError(yield* api.request("POST", "/oauth2/token", form({ ...exchange, client_secret: "wrong" })), 401, "INVALID_CLIENT")
      const tokens = yield* api.request("POST", "/oauth2/token", form(exchange))
      assert.strictEqual(tokens.status, 200, JSON.stringify(tokens.body))
      expect(tokens.body).toMatchObject({ token_type: "Bearer", expires_in: 604800, scope: "identify email" })
      expectError(yield* api.request("POST", "/oauth2/token", form(exchange)), 400, "INVALID_GRANT")
      const bearer = `Bearer ${field(tokens.body, "access_token")}`

      const me = yield* api.request("GET", "/oauth2/@me", { token: bearer })
      expect(me.body).toMatchObject({
        application: { id: app.id, name: "Reader" },
        scopes: ["identify", "email"],
        user: { id: user.userId, email: user.email }
      })
      const info = yield* api.request("GET", "/oauth2/userinfo", { token: bearer })
      expect(info.body).toMatchObject({ sub: user.userId, id: user.userId, email: user.email })
      const held = yield* api.request("GET", "/oauth2/@me/authorizations", { token: user.token })
      expect(held.body).toMatchObject([{ application: { id: app.id, name: "Reader" }, scopes: expect.arrayContaining(["identify", "email"]) }])
      // An access token reads only the routes made for it (reference/operations.md); a person's own routes refuse it.
      expect((yield* api.request("GET", "/users/@me", { token: bearer })).body).toMatchObject({ id: user.userId, email: user.email })
      expectError(yield* api.request("GET", "/users/@me/settings", { token: bearer }), 403, "ACCESS_DENIED")

      const basic = `Basic ${Buffer.from(`${app.id}:${app.clientSecret}`).toString("base64")}`
      const refreshed = yield* api.request("POST", "/oauth2/token", {
        body: { grant_type: "refresh_token", refresh_token: field(tokens.body, "refresh_token") },
        headers: { authorization: basic }
      })
      assert.strictEqual(refreshed.status, 200, JSON.stringify(refreshed.body))
      expectError(yield* api.request("GET", "/oauth2/@me", { token: bearer }), 401, "UNAUTHORIZED")
      const access = field(refreshed.body, "access_token")
      const client = { client_id: app.id, client_secret: app.clientSecret }
      const introspected = yield* api.request("POST", "/oauth2/introspect", form({ token: access, ...client }))
      expect(introspected.body).toMatchObject({ active: true, client_id: app.id, sub: user.userId, token_type: "Bearer" })

      const revoked = yield* api.request("POST", "/oauth2/token/revoke", form({ token: access, ...client }))
      assert.strictEqual(revoked.status, 204, JSON.stringify(revoked.body))
      expectError(yield* api.request("GET", "/oauth2/userinfo", { token: `Bearer ${access}` }), 401, "UNAUTHORIZED")
      expect((yield* api.request("POST", "/oauth2/introspect", form({ token: access, ...client }))).body).toEqual({ active: false })
      expect((yield* api.request("POST", "/oauth2/introspect", multipart({ token: access, ...client }))).body).toEqual({ active: false })
    }))

  it.effect("checks PKCE, the redirect URI and the client, and refuses malformed requests", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const developer = yield* api.register()
      const user = yield* api.register()
      const app = yield* createApplication(developer.token, { redirect_uris: [REDIRECT] })
      const other = yield* createApplication(developer.token, { redirect_uris: [REDIRECT] })
      const verifier = "a-verifier-of-enough-length-to-please-rfc-7636-0123456789"
      const challenge = createHash("sha256").update(verifier).digest("base64url")
      const issue = Effect.map(
        api.request("POST", "/oauth2/authorize/consent", {
          token: user.token,
          body: { client_id: app.id, scope: "identify", redirect_uri: REDIRECT, state: "s", code_challenge: challenge, code_challenge_method: "S256" }
        }),
        (reply) => codeOf(field(reply.body, "redirect_to"), "s")
      )
      const exchange = (code: string, extra: Record<string, string>) =>
        api.request("POST", "/oauth2/token", form({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: app.id, client_secret: app.clientSecret, ...extra }))

      expectError(yield* exchange(yield* issue, {}), 400, "INVALID_GRANT")
      expectError(yield* exchange(yield* issue, { code_verifier: "wrong" }), 400, "INVALID_GRANT")
      expectError(yield* exchange(yield* issue, { code_verifier: verifier, redirect_uri: "https://client.example/other" }), 400, "INVALID_GRANT")
      expectError(yield* exchange(yield* issue, { code_verifier: verifier, client_id: other.id, client_secret: other.clientSecret }), 400, "INVALID_GRANT")
      assert.strictEqual((yield* exchange(yield* issue, { code_verifier: verifier })).status, 200)

      expectError(yield* exchange("x", { grant_type: "password" }), 400, "INVALID_FORM_BODY")
      expectError(yield* api.request("POST", "/oauth2/token", form({ grant_type: "refresh_token" })), 400, "INVALID_FORM_BODY")
      expectError(yield* api.request("POST", "/oauth2/token", form({ grant_type: "refresh_token", refresh_token: "x" })), 401, "INVALID_CLIENT")
      expectError(
        yield* api.request("POST", "/oauth2/token", form({ grant_type: "refresh_token", refresh_token: "x", client_id: app.id })),
        400,
        "MISSING_CLIENT_SECRET"
      )
      expectError(yield* api.request("GET", "/oauth2/@me"), 401, "UNAUTHORIZED")
      expectError(yield* api.request("GET", "/oauth2/@me", { token: user.token }), 401, "UNAUTHORIZED")
    }))
})
