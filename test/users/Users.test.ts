import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { setAcls } from "../support/Acls.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"

const PASSWORD = "correct horse battery"
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64"
)
/** Enough of a GIF for the checks: the signature and two frames' graphic-control blocks. */
const ANIMATED_GIF = Buffer.concat([
  Buffer.from("GIF89a", "latin1"),
  Buffer.alloc(7),
  Buffer.from([0x21, 0xf9, 0x04, 0, 0, 0, 0, 0, 0x2c]),
  Buffer.from([0x21, 0xf9, 0x04, 0, 0, 0, 0, 0, 0x2c, 0x3b])
])
const hashOf = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex").slice(0, 32)
const dataUri = (mime: string, bytes: Buffer) => `data:${mime};base64,${bytes.toString("base64")}`
const uniqueName = () => `u_${randomUUID().slice(0, 8)}`

const body = (reply: { readonly body: unknown }) => reply.body as Record<string, unknown>

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("the user's account over HTTP", (it) => {
  const patch = (token: string, payload: unknown, headers?: Record<string, string>) =>
    Effect.flatMap(TestApi, (api) => api.request("PATCH", "/users/@me", { token, body: payload, ...(headers ? { headers } : {}) }))

  it.effect("GET /users/@me answers the private user; without a session it is 401", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId, email } = yield* api.register()
      const me = yield* api.request("GET", "/users/@me", { token })
      assert.strictEqual(me.status, 200)
      expect(me.body).toMatchObject({ id: userId, email, mfa_enabled: false, authenticator_types: [], premium_badge_hidden: false })
      assert.strictEqual((yield* api.request("GET", "/users/@me")).status, 401)
      assert.strictEqual((yield* api.request("PATCH", "/users/@me", { body: { bio: "x" } })).status, 401)
    }))

  it.effect("PATCH sets the profile fields, and empty text clears them", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId } = yield* api.register()
      const reply = yield* patch(token, {
        global_name: "  Ada  ",
        bio: "Counting engines",
        pronouns: "she/her",
        accent_color: 0x112233,
        mention_flags: 2,
        timezone: "Asia/Kolkata",
        timezone_privacy_flags: 1,
        premium_badge_hidden: true,
        has_unread_gift_inventory: false
      })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      expect(reply.body).toMatchObject({
        id: userId,
        global_name: "Ada",
        bio: "Counting engines",
        pronouns: "she/her",
        accent_color: 0x112233,
        mention_flags: 2,
        timezone: "Asia/Kolkata",
        timezone_privacy_flags: 1,
        premium_badge_hidden: true,
        premium_badge_masked: false
      })
      // Kept: a later read shows the same; the public user carries the mention preference.
      expect((yield* api.request("GET", "/users/@me", { token })).body).toMatchObject({ bio: "Counting engines", accent_color: 0x112233 })
      expect((yield* api.request("GET", `/users/${userId}`, { token })).body).toMatchObject({ global_name: "Ada", mention_flags: 2 })

      const cleared = yield* patch(token, { bio: "", pronouns: null, global_name: "", accent_color: null, timezone: null })
      assert.strictEqual(cleared.status, 200)
      expect(cleared.body).toMatchObject({ bio: null, pronouns: null, global_name: null, accent_color: null, timezone: null })
    }))

  it.effect("PATCH refuses bad fields with the error object", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const cases: ReadonlyArray<[unknown, string, string | undefined]> = [
        [{ bio: "x".repeat(321) }, "bio", "STRING_LENGTH_INVALID"],
        [{ pronouns: "x".repeat(41) }, "pronouns", "STRING_LENGTH_INVALID"],
        [{ global_name: "x".repeat(33) }, "global_name", "GLOBAL_NAME_LENGTH_INVALID"],
        [{ accent_color: 0x1000000 }, "accent_color", "COLOR_VALUE_TOO_HIGH"],
        [{ accent_color: -1 }, "accent_color", "COLOR_VALUE_TOO_LOW"],
        [{ timezone: "Mars/Olympus_Mons" }, "timezone", "INVALID_TIMEZONE_IDENTIFIER"],
        [{ mention_flags: 3 }, "mention_flags", undefined],
        [{ discriminator: "12345" }, "discriminator", "DISCRIMINATOR_INVALID_FORMAT"],
        [{ email: "someone@example.com" }, "email", "EMAIL_MUST_BE_CHANGED_VIA_TOKEN"],
        [{ username: "no spaces allowed" }, "username", "STRING_LENGTH_INVALID"]
      ]
      for (const [payload, path, code] of cases) {
        const reply = yield* patch(token, payload)
        assert.strictEqual(reply.status, 400, JSON.stringify(payload))
        const errors = body(reply).errors as Array<Record<string, unknown>>
        assert.strictEqual(body(reply).code, "INVALID_FORM_BODY")
        expect(errors[0]).toMatchObject(code === undefined ? { path } : { path, code })
      }
      const notJson = yield* api.request("PATCH", "/users/@me", { token, rawBody: "{", headers: { "content-type": "application/json" } })
      assert.strictEqual(notJson.status, 400)
    }))

  it.effect("avatars and banners are checked and kept as the hash of their bytes", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId } = yield* api.register()
      const set = yield* patch(token, { avatar: dataUri("image/png", PNG), banner: ANIMATED_GIF.toString("base64") })
      assert.strictEqual(set.status, 200, JSON.stringify(set.body))
      expect(set.body).toMatchObject({ avatar: hashOf(PNG), banner: `a_${hashOf(ANIMATED_GIF)}` })
      const stored = yield* queryAt(api.databaseUrl, "SELECT avatar, banner FROM users WHERE id = $1", [userId])
      expect(stored[0]).toMatchObject({ avatar: hashOf(PNG), banner: `a_${hashOf(ANIMATED_GIF)}` })

      const bad: ReadonlyArray<[string, string]> = [
        ["data:image/png;base64,!!!!", "INVALID_BASE64_FORMAT"],
        [dataUri("text/plain", PNG), "INVALID_IMAGE_FORMAT"],
        [Buffer.from("just some text, not an image").toString("base64"), "INVALID_IMAGE_DATA"],
        [dataUri("image/png", Buffer.concat([PNG, Buffer.alloc(720 * 1024)])), "IMAGE_SIZE_EXCEEDS_LIMIT"]
      ]
      for (const [avatar, code] of bad) {
        const reply = yield* patch(token, { avatar })
        assert.strictEqual(reply.status, 400, code)
        expect(reply.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "avatar", code }] })
      }
      const removed = yield* patch(token, { avatar: null })
      expect(removed.body).toMatchObject({ avatar: null, banner: `a_${hashOf(ANIMATED_GIF)}` })
    }))

  it.effect("a new username needs sudo mode and keeps the discriminator when that tag is free", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId } = yield* api.register()
      const before = body(yield* api.request("GET", "/users/@me", { token }))
      const name = uniqueName()

      const noProof = yield* patch(token, { username: name })
      assert.strictEqual(noProof.status, 403)
      expect(noProof.body).toMatchObject({ code: "SUDO_MODE_REQUIRED", has_mfa: false })
      const wrong = yield* patch(token, { username: name, password: "not the password" })
      assert.strictEqual(wrong.status, 400)
      expect(wrong.body).toMatchObject({ errors: [{ path: "password", code: "INVALID_PASSWORD" }] })

      const renamed = yield* patch(token, { username: name, password: PASSWORD })
      assert.strictEqual(renamed.status, 200, JSON.stringify(renamed.body))
      expect(renamed.body).toMatchObject({ id: userId, username: name, discriminator: before.discriminator })
      // The proof holds for five minutes through the header it came back in.
      const sudoToken = renamed.headers.get("x-service-sudo-mode-jwt")
      assert.isString(sudoToken)
      const again = yield* patch(token, { username: `${name}x` }, { "x-service-sudo-mode-jwt": sudoToken ?? "" })
      assert.strictEqual(again.status, 200, JSON.stringify(again.body))
      expect(again.body).toMatchObject({ username: `${name}x` })
    }))

  it.effect("a username whose tag is taken gets another free discriminator; choosing one needs premium", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const name = uniqueName()
      const first = yield* api.register({ username: name })
      const firstTag = body(yield* api.request("GET", "/users/@me", { token: first.token })).discriminator
      const second = yield* api.register()
      yield* queryAt(api.databaseUrl, "UPDATE users SET discriminator = $1 WHERE id = $2", [firstTag, second.userId])

      const renamed = yield* patch(second.token, { username: name.toUpperCase(), password: PASSWORD })
      assert.strictEqual(renamed.status, 200, JSON.stringify(renamed.body))
      assert.strictEqual(body(renamed).username, name.toUpperCase())
      assert.notStrictEqual(body(renamed).discriminator, firstTag)
      assert.match(String(body(renamed).discriminator), /^\d{4}$/)

      // Naming the current discriminator next to a name where it is taken: TAG_ALREADY_TAKEN.
      const third = yield* api.register()
      yield* queryAt(api.databaseUrl, "UPDATE users SET discriminator = $1 WHERE id = $2", [firstTag, third.userId])
      const clash = yield* patch(third.token, { username: name, discriminator: String(firstTag), password: PASSWORD })
      assert.strictEqual(clash.status, 400)
      expect(clash.body).toMatchObject({ errors: [{ path: "username", code: "TAG_ALREADY_TAKEN" }] })

      const other = yield* patch(third.token, { discriminator: 1234 === Number(firstTag) ? 4321 : 1234, password: PASSWORD })
      assert.strictEqual(other.status, 400)
      expect(other.body).toMatchObject({ errors: [{ path: "discriminator", code: "CHANGING_DISCRIMINATOR_REQUIRES_PREMIUM" }] })
    }))

  it.effect("a new password needs sudo mode, then ends the other sessions but not this one", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, email } = yield* api.register()
      const other = field((yield* api.request("POST", "/auth/login", { body: { email, password: PASSWORD } })).body, "token")
      const next = "another long passphrase"

      assert.strictEqual((yield* patch(token, { new_password: next })).status, 403)
      const weak = yield* patch(token, { new_password: "short", password: PASSWORD })
      expect(weak.body).toMatchObject({ errors: [{ path: "new_password", code: "PASSWORD_LENGTH_INVALID" }] })

      const changed = yield* patch(token, { new_password: next, password: PASSWORD })
      assert.strictEqual(changed.status, 200, JSON.stringify(changed.body))
      assert.isString(body(changed).password_last_changed_at)
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token })).status, 200)
      // Other processes may hold a revoked session for a few seconds; this one process drops it at once.
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token: other })).status, 401)
      assert.strictEqual((yield* api.request("POST", "/auth/login", { body: { email, password: PASSWORD } })).status, 400)
      assert.strictEqual((yield* api.request("POST", "/auth/login", { body: { email, password: next } })).status, 200)
    }))

  it.effect("an email is only taken with the email change flow's token", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, email } = yield* api.register()
      const same = yield* patch(token, { email: email.toUpperCase() })
      assert.strictEqual(same.status, 200)
      const forged = yield* patch(token, { email: "new@example.com", email_token: "not-a-token" })
      assert.strictEqual(forged.status, 400)
      expect(forged.body).toMatchObject({ errors: [{ path: "email_token", code: "INVALID_EMAIL_TOKEN" }] })
    }))

  it.effect("premium_enabled_override is for staff only", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId } = yield* api.register()
      const refused = yield* patch(token, { premium_enabled_override: true })
      expectError(refused, 403, "MISSING_ACCESS")
      yield* setAcls(userId)
      const staff = yield* patch(token, { premium_enabled_override: true })
      assert.strictEqual(staff.status, 200)
      expect(staff.body).toMatchObject({ premium_enabled_override: true, is_staff: true })
    }))

  it.effect("GET /users/{id} answers the public user or 404 UNKNOWN_USER", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const other = yield* api.register({ global_name: "Grace" })
      const reply = yield* api.request("GET", `/users/${other.userId}`, { token: me.token })
      assert.strictEqual(reply.status, 200)
      expect(reply.body).toMatchObject({ id: other.userId, global_name: "Grace", flags: 0 })
      assert.notProperty(reply.body, "email")
      const missing = yield* api.request("GET", "/users/1", { token: me.token })
      expectError(missing, 404, "UNKNOWN_USER")
      const bad = yield* api.request("GET", "/users/abc", { token: me.token })
      assert.strictEqual(bad.status, 400)
      expect(bad.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ code: "INVALID_SNOWFLAKE_FORMAT" }] })
      assert.strictEqual((yield* api.request("GET", `/users/${other.userId}`)).status, 401)
    }))

  it.effect("check-tag says whether someone else holds a username#discriminator", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const name = uniqueName()
      const holder = yield* api.register({ username: name })
      const tag = String(body(yield* api.request("GET", "/users/@me", { token: holder.token })).discriminator)
      const asker = yield* api.register()
      const check = (token: string, username: string, discriminator: string) =>
        api.request("GET", `/users/check-tag?username=${encodeURIComponent(username)}&discriminator=${discriminator}`, { token })

      expect((yield* check(asker.token, name.toUpperCase(), tag)).body).toEqual({ taken: true })
      expect((yield* check(asker.token, name, String(Number(tag)))).body).toEqual({ taken: true })
      const free = tag === "0001" ? "0002" : "0001"
      expect((yield* check(asker.token, name, free)).body).toEqual({ taken: false })
      // One's own tag is free for oneself.
      expect((yield* check(holder.token, name, tag)).body).toEqual({ taken: false })

      const badName = yield* check(asker.token, "no spaces", tag)
      assert.strictEqual(badName.status, 400)
      expect(badName.body).toMatchObject({ errors: [{ path: "username", code: "STRING_LENGTH_INVALID" }] })
      const bad = yield* check(asker.token, name, "12345")
      expectError(bad, 400, "INVALID_FORM_BODY")
      assert.strictEqual((yield* api.request("GET", `/users/check-tag?username=${name}`, { token: asker.token })).status, 400)
      assert.strictEqual((yield* api.request("GET", `/users/check-tag?username=${name}&discriminator=${tag}`)).status, 401)
    }))
})
