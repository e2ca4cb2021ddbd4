import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { maskIp, parseUserAgent } from "../../src/sessions/ClientInfo.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"

const CHROME_WINDOWS =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
const SAFARI_IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
const PASSWORD = "correct horse battery"

const idHash = (token: string) => createHash("sha256").update(token).digest("base64url")

describe("user agent parsing", () => {
  it("names the common browsers, systems and device kinds", () => {
    assert.deepStrictEqual(parseUserAgent(CHROME_WINDOWS), { browser: "Chrome", os: "Windows", platform: "Desktop" })
    assert.deepStrictEqual(parseUserAgent(SAFARI_IPHONE), { browser: "Safari", os: "iOS", platform: "Mobile" })
    assert.deepStrictEqual(
      parseUserAgent("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15"),
      { browser: "Safari", os: "macOS", platform: "Desktop" }
    )
    assert.deepStrictEqual(
      parseUserAgent("Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"),
      { browser: "Firefox", os: "Linux", platform: "Desktop" }
    )
    assert.deepStrictEqual(
      parseUserAgent(
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51"
      ),
      { browser: "Edge", os: "Windows", platform: "Desktop" }
    )
    assert.deepStrictEqual(
      parseUserAgent("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"),
      { browser: "Chrome", os: "Android", platform: "Mobile" }
    )
    assert.deepStrictEqual(
      parseUserAgent("Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"),
      { browser: "Chrome", os: "Android", platform: "Tablet" }
    )
    assert.deepStrictEqual(parseUserAgent("curl/8.5.0"), { browser: null, os: null, platform: null })
    assert.deepStrictEqual(parseUserAgent(null), { browser: null, os: null, platform: null })
  })

  it("hides the host part of addresses", () => {
    assert.strictEqual(maskIp("203.0.113.77"), "203.0.113.*")
    assert.strictEqual(maskIp("::ffff:127.0.0.1"), "127.0.0.*")
    assert.strictEqual(maskIp("2001:db8:85a3::8a2e:370:7334"), "2001:db8:85a3:0:*")
    assert.strictEqual(maskIp("not an address"), null)
    assert.strictEqual(maskIp(null), null)
  })
})

layer(TestApi.layerWithOutside(), { timeout: 120_000, excludeTestServices: true })("sessions over HTTP", (it) => {
  const login = (email: string, userAgent: string) =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const reply = yield* api.request("POST", "/auth/login", { body: { email, password: PASSWORD }, headers: { "user-agent": userAgent } })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      return field(reply.body, "token")
    })

  it.effect("lists the user's sessions with their devices, the current one marked", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token: first, email } = yield* api.register()
      const chrome = yield* login(email, CHROME_WINDOWS)
      const safari = yield* login(email, SAFARI_IPHONE)
      yield* api.register() // someone else's sessions stay out of the list

      const reply = yield* api.request("GET", "/auth/sessions", { token: chrome })
      assert.strictEqual(reply.status, 200)
      const list = reply.body as Array<Record<string, unknown>>
      assert.deepStrictEqual(list.map((s) => s.id_hash).sort(), [first, chrome, safari].map(idHash).sort())
      assert.deepStrictEqual(list.filter((s) => s.current === true).map((s) => s.id_hash), [idHash(chrome)])
      expect(list.find((s) => s.id_hash === idHash(chrome))).toMatchObject({
        client_info: { browser: "Chrome", os: "Windows", platform: "Desktop", location: null },
        masked_ip: "127.0.0.*"
      })
      expect(list.find((s) => s.id_hash === idHash(safari))).toMatchObject({
        current: false,
        client_info: { browser: "Safari", os: "iOS", platform: "Mobile", location: null }
      })
      for (const session of list) assert.ok(!Number.isNaN(Date.parse(String(session.approx_last_used_at))))

      assert.strictEqual((yield* api.request("GET", "/auth/sessions")).status, 401)
      assert.strictEqual((yield* api.request("GET", "/auth/sessions", { token: "not-a-session" })).status, 401)
    }))

  it.effect("keeps last_used_at roughly fresh", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { email } = yield* api.register()
      const token = yield* login(email, CHROME_WINDOWS)
      const hash = createHash("sha256").update(token).digest()
      yield* queryAt(api.databaseUrl, "UPDATE sessions SET last_used_at = now() - interval '1 hour' WHERE token_hash = $1", [hash])
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token })).status, 200)
      // The write happens off the request's path: wait for it.
      let age = Infinity
      for (let i = 0; i < 50 && age > 60; i++) {
        const rows = yield* queryAt(api.databaseUrl, "SELECT extract(epoch FROM now() - last_used_at)::float AS age FROM sessions WHERE token_hash = $1", [hash])
        age = Number(rows[0]?.age)
        if (age > 60) yield* Effect.sleep("100 millis")
      }
      assert.isBelow(age, 60)
    }))

  it.effect("ends another session only in sudo mode", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token: mine, email } = yield* api.register()
      const other = yield* login(email, SAFARI_IPHONE)

      const refused = yield* api.request("POST", "/auth/sessions/logout", { token: mine, body: { session_id_hashes: [idHash(other)] } })
      assert.strictEqual(refused.status, 403)
      expect(refused.body).toMatchObject({ code: "SUDO_MODE_REQUIRED", has_mfa: false })
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token: other })).status, 200)

      const wrong = yield* api.request("POST", "/auth/sessions/logout", {
        token: mine,
        body: { session_id_hashes: [idHash(other)], password: "not the password" }
      })
      assert.strictEqual(wrong.status, 400)
      expect(wrong.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "password", code: "INVALID_PASSWORD" }] })

      const done = yield* api.request("POST", "/auth/sessions/logout", {
        token: mine,
        body: { session_id_hashes: [idHash(other)], password: PASSWORD }
      })
      assert.strictEqual(done.status, 204)
      assert.ok(done.headers.get("x-service-sudo-mode-jwt"))
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token: other })).status, 401)
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token: mine })).status, 200)

      // The sudo token stands in for the password for the next while.
      const third = yield* login(email, CHROME_WINDOWS)
      const again = yield* api.request("POST", "/auth/sessions/logout", {
        token: mine,
        body: { session_id_hashes: [idHash(third)] },
        headers: { "x-service-sudo-mode-jwt": done.headers.get("x-service-sudo-mode-jwt") ?? "" }
      })
      assert.strictEqual(again.status, 204)
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token: third })).status, 401)
    }))

  it.effect("ends the current session without sudo", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const reply = yield* api.request("POST", "/auth/sessions/logout", { token, body: { session_id_hashes: [idHash(token)] } })
      assert.strictEqual(reply.status, 204)
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token })).status, 401)
    }))

  it.effect("never ends another user's session", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const them = yield* api.register()
      const reply = yield* api.request("POST", "/auth/sessions/logout", {
        token: me.token,
        body: { session_id_hashes: [idHash(them.token)], password: PASSWORD }
      })
      assert.strictEqual(reply.status, 204)
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token: them.token })).status, 200)
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token: me.token })).status, 200)
    }))

  it.effect("refuses bad input and anonymous callers", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const tooMany = Array.from({ length: 101 }, (_, i) => idHash(`token ${i}`))
      const many = yield* api.request("POST", "/auth/sessions/logout", { token, body: { session_id_hashes: tooMany, password: PASSWORD } })
      assert.strictEqual(many.status, 400)
      expect(many.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "session_id_hashes" }] })

      const malformed = yield* api.request("POST", "/auth/sessions/logout", { token, body: { session_id_hashes: ["abc"] } })
      assert.strictEqual(malformed.status, 400)
      expect(malformed.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "session_id_hashes.0", code: "INVALID_FORMAT" }] })

      const missing = yield* api.request("POST", "/auth/sessions/logout", { token, body: {} })
      expectError(missing, 400, "INVALID_FORM_BODY")

      const anonymous = yield* api.request("POST", "/auth/sessions/logout", { body: { session_id_hashes: [] } })
      expectError(anonymous, 401, "UNAUTHORIZED")

      assert.strictEqual((yield* api.request("GET", "/users/@me", { token })).status, 200)
    }))
})
