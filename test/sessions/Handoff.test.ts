import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { newHandoffCode, normalizeHandoffCode } from "../../src/sessions/Handoffs.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"

const FIREFOX_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
const CODE = /^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/

describe("handoff codes", () => {
  it("are 8 unambiguous symbols, read back in any case and with or without the dash", () => {
    const code = newHandoffCode()
    assert.match(code, CODE)
    const plain = code.replace("-", "")
    assert.strictEqual(normalizeHandoffCode(code), plain)
    assert.strictEqual(normalizeHandoffCode(` ${plain.toLowerCase()} `), plain)
    assert.strictEqual(normalizeHandoffCode("ABCD-EFG0"), undefined) // 0 is not a symbol
    assert.strictEqual(normalizeHandoffCode("ABCD-EFG"), undefined)
  })
})

layer(TestApi.layerWithOutside(), { timeout: 120_000, excludeTestServices: true })("device handoff over HTTP", (it) => {
  const initiate = Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("POST", "/auth/handoff/initiate", { headers: { "user-agent": FIREFOX_LINUX } })
    assert.strictEqual(reply.status, 200)
    return { code: field(reply.body, "code"), expiresAt: field(reply.body, "expires_at") }
  })
  const status = (code: string) => Effect.flatMap(TestApi, (api) => api.request("GET", `/auth/handoff/${code}/status`))
  const expire = (code: string) =>
    Effect.flatMap(TestApi, (api) =>
      queryAt(api.databaseUrl, "UPDATE auth_handoffs SET expires_at = now() - interval '1 second' WHERE code_hash = $1", [
        createHash("sha256").update(code.replace("-", "")).digest()
      ]))

  it.effect("hands a new session to the waiting device, once", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId } = yield* api.register()
      const { code, expiresAt } = yield* initiate
      assert.match(code, CODE)
      const lifetime = Date.parse(expiresAt) - Date.now()
      assert.isAbove(lifetime, 4 * 60_000)
      assert.isAtMost(lifetime, 5 * 60_000 + 5_000)

      assert.deepStrictEqual((yield* status(code)).body, { status: "pending", token: null, user_id: null, user: null })
      const info = yield* api.request("GET", `/auth/handoff/${code}/info`)
      assert.strictEqual(info.status, 200)
      assert.deepStrictEqual(info.body, { status: "pending", client_info: { platform: "Desktop", os: "Linux", location: null } })

      const complete = yield* api.request("POST", "/auth/handoff/complete", { body: { code: code.toLowerCase(), token, user_id: userId } })
      assert.strictEqual(complete.status, 204, JSON.stringify(complete.body))

      const done = yield* status(code)
      assert.strictEqual(done.status, 200)
      expect(done.body).toMatchObject({ status: "completed", user_id: userId })
      const handed = field(done.body, "token")
      assert.notStrictEqual(handed, token)
      const me = yield* api.request("GET", "/users/@me", { token: handed })
      assert.strictEqual(me.status, 200)
      assert.strictEqual(field(me.body, "id"), userId)
      // Both devices are signed in, each with its own session.
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token })).status, 200)

      // The session is given out once: a later poll (or an eavesdropper) gets no token.
      assert.deepStrictEqual((yield* status(code)).body, { status: "completed", token: null, user_id: null, user: null })
      const twice = yield* api.request("POST", "/auth/handoff/complete", { body: { code, token, user_id: userId } })
      expectError(twice, 400, "INVALID_HANDOFF_CODE")
    }))

  it.effect("accepts the completing device's Authorization header instead of a body token", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId } = yield* api.register()
      const { code } = yield* initiate
      const complete = yield* api.request("POST", "/auth/handoff/complete", { token, body: { code, user_id: userId } })
      assert.strictEqual(complete.status, 204)
      expect((yield* status(code)).body).toMatchObject({ status: "completed", user_id: userId })
    }))

  it.effect("expires", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId } = yield* api.register()
      const { code } = yield* initiate
      yield* expire(code)
      assert.deepStrictEqual((yield* status(code)).body, { status: "expired", token: null, user_id: null, user: null })
      const late = yield* api.request("POST", "/auth/handoff/complete", { body: { code, token, user_id: userId } })
      expectError(late, 400, "HANDOFF_CODE_EXPIRED")

      // Completed but not picked up in time: expired too, and no session is made.
      const second = yield* initiate
      const complete = yield* api.request("POST", "/auth/handoff/complete", { body: { code: second.code, token, user_id: userId } })
      assert.strictEqual(complete.status, 204)
      yield* expire(second.code)
      assert.deepStrictEqual((yield* status(second.code)).body, { status: "expired", token: null, user_id: null, user: null })
    }))

  it.effect("can be cancelled by the waiting device", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { code } = yield* initiate
      assert.strictEqual((yield* api.request("DELETE", `/auth/handoff/${code}`)).status, 204)
      assert.deepStrictEqual((yield* status(code)).body, { status: "expired", token: null, user_id: null, user: null })
    }))

  it.effect("completes only with a session of the named user", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const other = yield* api.register()
      const { code } = yield* initiate
      const attempt = (body: Record<string, unknown>, token?: string) =>
        api.request("POST", "/auth/handoff/complete", { body: { code, ...body }, ...(token === undefined ? {} : { token }) })

      const anonymous = yield* attempt({ user_id: me.userId })
      expectError(anonymous, 401, "UNAUTHORIZED")
      assert.strictEqual((yield* attempt({ user_id: me.userId, token: "not-a-session" })).status, 401)

      const foreign = yield* attempt({ user_id: other.userId, token: me.token })
      expectError(foreign, 403, "SESSION_TOKEN_MISMATCH")
      // A body token and a header of two different accounts.
      const mixed = yield* attempt({ user_id: me.userId, token: me.token }, other.token)
      expectError(mixed, 403, "SESSION_TOKEN_MISMATCH")

      // None of that completed it.
      assert.deepStrictEqual((yield* status(code)).body, { status: "pending", token: null, user_id: null, user: null })
    }))

  it.effect("refuses malformed and unknown codes", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId } = yield* api.register()
      const malformed = yield* status("nope")
      expectError(malformed, 400, "INVALID_HANDOFF_CODE")
      const tooLong = yield* status("A".repeat(64))
      expectError(tooLong, 400, "INVALID_FORM_BODY")

      // An unknown well-formed code reads as expired: polling guesses tells nothing.
      let unknown = newHandoffCode()
      assert.deepStrictEqual((yield* status(unknown)).body, { status: "expired", token: null, user_id: null, user: null })
      const completeUnknown = yield* api.request("POST", "/auth/handoff/complete", { body: { code: unknown, token, user_id: userId } })
      expectError(completeUnknown, 400, "INVALID_HANDOFF_CODE")
      unknown = "0000-0000"
      const completeMalformed = yield* api.request("POST", "/auth/handoff/complete", { body: { code: unknown, token, user_id: userId } })
      expect(completeMalformed.body).toMatchObject({ code: "INVALID_HANDOFF_CODE" })

      const badUser = yield* api.request("POST", "/auth/handoff/complete", { body: { code: newHandoffCode(), token, user_id: "abc" } })
      assert.strictEqual(badUser.status, 400)
      expect(badUser.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "user_id", code: "INVALID_SNOWFLAKE_FORMAT" }] })
      const noCode = yield* api.request("POST", "/auth/handoff/complete", { body: { token, user_id: userId } })
      assert.strictEqual(noCode.status, 400)
      expect(noCode.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "code" }] })
    }))
})
