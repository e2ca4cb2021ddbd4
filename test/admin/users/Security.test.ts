import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, field, type Reply, TestApi } from "../../support/Api.ts"
import { setAcls } from "../../support/Acls.ts"
import { TestMail } from "../../support/Mail.ts"
import { SoftwareAuthenticator } from "../../support/SoftwareAuthenticator.ts"
import { identified } from "../../gateway/Client.ts"
import { addSecurityKey, mfaTicket, PASSWORD, stepNow, totpAt, userWithTotp } from "../../mfa/Support.ts"
import { createApplication } from "../../oauth2/Fixtures.ts"

const admin = (key: string) => `Admin ${key}`

/** Every route of the issue, a valid body for it (given a user id), and a body it refuses. */
const ROUTES: ReadonlyArray<{ path: string; body: (userId: string) => Record<string, unknown>; bad: Record<string, unknown>; acl: string }> = [
  { path: "/admin/users/disable-mfa", body: (id) => ({ user_id: id }), bad: { user_id: "x" }, acl: "user:update:mfa" },
  {
    path: "/admin/users/delete-webauthn-credential",
    body: (id) => ({ user_id: id, credential_id: "nope" }),
    bad: { user_id: "1" },
    acl: "user:update:mfa"
  },
  { path: "/admin/users/terminate-sessions", body: (id) => ({ user_id: id }), bad: {}, acl: "user:terminate:sessions" },
  { path: "/admin/users/temp-ban", body: (id) => ({ user_id: id, duration_hours: 1 }), bad: { user_id: "1", duration_hours: -1 }, acl: "user:temp_ban" },
  { path: "/admin/users/unban", body: (id) => ({ user_id: id }), bad: { user_id: 5 }, acl: "user:temp_ban" },
  { path: "/admin/users/disable-suspicious", body: (id) => ({ user_id: id, flags: 1 }), bad: { user_id: "1", flags: 256 }, acl: "user:disable:suspicious" },
  {
    path: "/admin/users/schedule-deletion",
    body: (id) => ({ user_id: id, reason_code: 2 }),
    bad: { user_id: "1", reason_code: "spam" },
    acl: "user:delete"
  },
  { path: "/admin/users/cancel-deletion", body: (id) => ({ user_id: id }), bad: { user_id: null }, acl: "user:delete" },
  {
    path: "/admin/users/cancel-bulk-message-deletion",
    body: (id) => ({ user_id: id }),
    bad: { user_id: [] },
    acl: "user:cancel:bulk_message_deletion"
  },
  {
    path: "/admin/bulk/schedule-user-deletion",
    body: (id) => ({ user_ids: [id], reason_code: 2 }),
    bad: { user_ids: [], reason_code: 2 },
    acl: "bulk:delete:users"
  }
]

const userOf = (reply: Reply): Record<string, unknown> => {
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  const body = reply.body
  if (typeof body !== "object" || body === null || !("user" in body) || typeof body.user !== "object" || body.user === null) {
    throw new Error(`no user in ${JSON.stringify(body)}`)
  }
  return Object.fromEntries(Object.entries(body.user))
}

layer(TestApi.layerWithOutside(), { timeout: 180_000, excludeTestServices: true })("admin: users' security and lifecycle", (it) => {
  const post = (path: string, body: unknown, token?: string) =>
    Effect.flatMap(TestApi, (api) => api.request("POST", path, { token: token ?? admin(api.adminKey), body }))
  const login = (email: string) =>
    Effect.flatMap(TestApi, (api) => api.request("POST", "/auth/login", { body: { email, password: PASSWORD } }))
  const me = (token: string) => Effect.map(Effect.flatMap(TestApi, (api) => api.request("GET", "/users/@me", { token })), (r) => r.status)
  const auditActions = (userId: string) =>
    Effect.gen(function*() {
      const reply = yield* post("/admin/audit-logs/search", { target_id: userId, limit: 100 })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      const logs = (reply.body as { logs: ReadonlyArray<{ action: string; metadata: Record<string, string> }> }).logs
      return logs
    })

  it.effect("every route: 401 without credentials, 403 without its ACL (another one held), 400 on a bad body", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const target = yield* api.register()
      const operator = yield* api.register()
      yield* setAcls(operator.userId, ["admin:authenticate", "user:lookup"])
      const key = yield* post("/admin/api-keys", { name: "lookups", acls: ["user:lookup"] })
      const keySecret = field(key.body, "key")
      for (const route of ROUTES) {
        expectError(yield* api.request("POST", route.path, { body: route.body(target.userId) }), 401, "UNAUTHORIZED")
        expectError(yield* post(route.path, route.body(target.userId), operator.token), 403, "MISSING_PERMISSIONS")
        expectError(yield* post(route.path, route.body(target.userId), admin(keySecret)), 403, "MISSING_PERMISSIONS")
        expectError(yield* post(route.path, route.bad), 400, "INVALID_FORM_BODY")
      }
      // Nothing happened to the target.
      assert.strictEqual(yield* me(target.token), 200)
      // The route's own ACL is enough.
      yield* setAcls(operator.userId, ["admin:authenticate", "user:terminate:sessions"])
      const terminated = yield* post("/admin/users/terminate-sessions", { user_id: target.userId }, operator.token)
      assert.strictEqual(terminated.status, 200, JSON.stringify(terminated.body))
    }))

  it.effect("a user-id route answers UNKNOWN_USER for nobody", () =>
    Effect.gen(function*() {
      for (const route of ROUTES.filter((r) => r.path.startsWith("/admin/users/"))) {
        expectError(yield* post(route.path, route.body("42")), 404, "UNKNOWN_USER")
      }
    }))

  it.effect("temp-ban: the tokens and the gateway session end at once, login is refused until unban; mailed and audited", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const mail = yield* TestMail
      const user = yield* api.register()
      const second = field((yield* login(user.email)).body, "token")
      const gateway = (yield* identified(user.token)).client

      const banned = userOf(yield* post("/admin/users/temp-ban", { user_id: user.userId, duration_hours: 24, reason: "spam" }))
      const until = new Date(String(banned.temp_banned_until)).getTime()
      // The flags show the hold as the production service's do (DISABLED, bit 38).
      assert.isTrue((BigInt(String(banned.flags)) & (1n << 38n)) !== 0n, String(banned.flags))
      assert.isTrue(Math.abs(until - (Date.now() + 24 * 3_600_000)) < 60_000, String(banned.temp_banned_until))
      assert.strictEqual(yield* me(user.token), 401)
      assert.strictEqual(yield* me(second), 401)
      expect(yield* gateway.closed).toMatchObject({ code: 4004 })
      expectError(yield* login(user.email), 403, "ACCOUNT_SUSPENDED_TEMPORARILY")
      expect((yield* mail.next(user.email, /temporarily suspended/)).text).toContain("spam")

      const unbanned = userOf(yield* post("/admin/users/unban", { user_id: user.userId }))
      assert.isNull(unbanned.temp_banned_until)
      assert.strictEqual(unbanned.flags, "0")
      yield* mail.next(user.email, /no longer suspended/)
      const again = yield* login(user.email)
      assert.strictEqual(again.status, 200, JSON.stringify(again.body))

      // 0 hours: for good, with no end shown.
      const permanent = userOf(yield* post("/admin/users/temp-ban", { user_id: user.userId, duration_hours: 0 }))
      assert.isNull(permanent.temp_banned_until)
      assert.isTrue((BigInt(String(permanent.flags)) & (1n << 38n)) !== 0n, String(permanent.flags))
      assert.strictEqual(yield* me(field(again.body, "token")), 401)
      expectError(yield* login(user.email), 403, "ACCOUNT_SUSPENDED_PERMANENTLY")

      const actions = (yield* auditActions(user.userId)).map((l) => l.action)
      expect(actions).toEqual(expect.arrayContaining(["user.temp_ban", "user.unban"]))
    }))

  it.effect("a ban refuses a user with MFA before the MFA step, and a wrong password still answers as before", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* userWithTotp
      userOf(yield* post("/admin/users/temp-ban", { user_id: user.userId, duration_hours: 0 }))
      const refused = yield* login(user.email)
      expectError(refused, 403, "ACCOUNT_SUSPENDED_PERMANENTLY")
      assert.notProperty(refused.body, "ticket")
      // The standing is told only to whoever knows the password.
      const wrong = yield* api.request("POST", "/auth/login", { body: { email: user.email, password: "not the password" } })
      assert.strictEqual(wrong.status, 400)
    }))

  it.effect("a ban that comes between a login's first and second step, or during a device handoff, still gets no session", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* userWithTotp
      const { ticket } = yield* mfaTicket(user.email)
      userOf(yield* post("/admin/users/temp-ban", { user_id: user.userId, duration_hours: 3 }))
      const step = yield* api.request("POST", "/auth/login/mfa/totp", { body: { ticket, code: totpAt(user.secret, stepNow() + 1) } })
      expectError(step, 403, "ACCOUNT_SUSPENDED_TEMPORARILY")

      const other = yield* api.register()
      const initiated = yield* api.request("POST", "/auth/handoff/initiate", {})
      const code = field(initiated.body, "code")
      const completed = yield* api.request("POST", "/auth/handoff/complete", { body: { code, token: other.token, user_id: other.userId } })
      assert.strictEqual(completed.status, 204, JSON.stringify(completed.body))
      userOf(yield* post("/admin/users/disable-suspicious", { user_id: other.userId, flags: 2 }))
      expectError(yield* api.request("GET", `/auth/handoff/${code}/status`), 403, "ACCOUNT_SUSPICIOUS_ACTIVITY")
    }))

  it.effect("a banned bot's token is refused at once, and its gateway session ends; unbanned, it works again", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const app = yield* createApplication(owner.token)
      assert.strictEqual(yield* me(app.botToken), 200)
      const gateway = (yield* identified(app.botToken)).client
      userOf(yield* post("/admin/users/temp-ban", { user_id: app.id, duration_hours: 1 }))
      assert.strictEqual(yield* me(app.botToken), 401)
      expect(yield* gateway.closed).toMatchObject({ code: 4004 })
      userOf(yield* post("/admin/users/unban", { user_id: app.id }))
      assert.strictEqual(yield* me(app.botToken), 200)
    }))

  it.effect("a banned user's OAuth2 access token is refused while the ban lasts", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const developer = yield* api.register()
      const user = yield* api.register()
      const redirect = "https://client.example/callback"
      const app = yield* createApplication(developer.token, { name: "Reader", redirect_uris: [redirect] })
      const consent = yield* api.request("POST", "/oauth2/authorize/consent", {
        token: user.token,
        body: { client_id: app.id, scope: "identify", redirect_uri: redirect, state: "s", response_type: "code" }
      })
      const code = new URL(field(consent.body, "redirect_to")).searchParams.get("code") ?? ""
      const tokens = yield* api.request("POST", "/oauth2/token", {
        rawBody: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          redirect_uri: redirect,
          client_id: app.id,
          client_secret: app.clientSecret
        }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded" }
      })
      const bearer = `Bearer ${field(tokens.body, "access_token")}`
      assert.strictEqual((yield* api.request("GET", "/oauth2/@me", { token: bearer })).status, 200)
      userOf(yield* post("/admin/users/temp-ban", { user_id: user.userId, duration_hours: 1 }))
      assert.strictEqual((yield* api.request("GET", "/oauth2/@me", { token: bearer })).status, 401)
      userOf(yield* post("/admin/users/unban", { user_id: user.userId }))
      assert.strictEqual((yield* api.request("GET", "/oauth2/@me", { token: bearer })).status, 200)
    }))

  it.effect("disable-suspicious: sessions end; login answers ACCOUNT_SUSPICIOUS_ACTIVITY with what to verify", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const mail = yield* TestMail
      const user = yield* api.register()
      const view = userOf(yield* post("/admin/users/disable-suspicious", { user_id: user.userId, flags: 5 }))
      assert.strictEqual(view.suspicious_activity_flags, 5)
      // DISABLED_SUSPICIOUS_ACTIVITY, bit 35.
      assert.strictEqual(view.flags, String(1n << 35n))
      assert.strictEqual(yield* me(user.token), 401)
      const refused = yield* login(user.email)
      expectError(refused, 403, "ACCOUNT_SUSPICIOUS_ACTIVITY")
      expect(refused.body).toMatchObject({ data: { suspicious_activity_flags: 5 } })
      yield* mail.next(user.email, /suspicious activity/)
      expect((yield* auditActions(user.userId)).map((l) => l.action)).toContain("user.disable_suspicious_activity")
    }))

  it.effect("schedule-deletion: the deletion is set with its reasons, sessions end, login is refused; cancel-deletion undoes it", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const mail = yield* TestMail
      const user = yield* api.register()
      // Below the shortest grace period: the period is the minimum (60 days; 14 for a user's own request).
      const scheduled = userOf(yield* post("/admin/users/schedule-deletion", {
        user_id: user.userId,
        reason_code: 3,
        days_until_deletion: 1,
        public_reason: "Terms of service"
      }))
      const at = new Date(String(scheduled.pending_deletion_at)).getTime()
      assert.isTrue(Math.abs(at - (Date.now() + 60 * 86_400_000)) < 60_000, String(scheduled.pending_deletion_at))
      assert.strictEqual(scheduled.deletion_reason_code, 3)
      assert.strictEqual(scheduled.deletion_public_reason, "Terms of service")
      assert.strictEqual(yield* me(user.token), 401)
      expectError(yield* login(user.email), 403, "ACCOUNT_SUSPENDED_PERMANENTLY")
      expect((yield* mail.next(user.email, /scheduled for deletion/)).text).toContain("Terms of service")

      const own = userOf(yield* post("/admin/users/schedule-deletion", { user_id: user.userId, reason_code: 1, days_until_deletion: 20 }))
      const ownAt = new Date(String(own.pending_deletion_at)).getTime()
      assert.isTrue(Math.abs(ownAt - (Date.now() + 20 * 86_400_000)) < 60_000, String(own.pending_deletion_at))
      assert.isNull(own.deletion_public_reason)

      const cancelled = userOf(yield* post("/admin/users/cancel-deletion", { user_id: user.userId }))
      assert.isNull(cancelled.pending_deletion_at)
      assert.isNull(cancelled.deletion_reason_code)
      const again = yield* login(user.email)
      assert.strictEqual(again.status, 200, JSON.stringify(again.body))
      const actions = (yield* auditActions(user.userId)).map((l) => l.action)
      expect(actions).toEqual(expect.arrayContaining(["user.schedule_deletion", "user.cancel_deletion"]))
    }))

  it.effect("bulk schedule-user-deletion: each id alone; an unknown one fails without the others", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const a = yield* api.register()
      const b = yield* api.register()
      const reply = yield* post("/admin/bulk/schedule-user-deletion", {
        user_ids: [a.userId, "42", b.userId],
        reason_code: 2,
        public_reason: "Spam wave"
      })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      expect(reply.body).toEqual({ successful: [a.userId, b.userId], failed: [{ id: "42", error: expect.any(String) }] })
      for (const user of [a, b]) {
        assert.strictEqual(yield* me(user.token), 401)
        expectError(yield* login(user.email), 403, "ACCOUNT_SUSPENDED_PERMANENTLY")
      }
      const lookup = yield* post("/admin/audit-logs/search", { query: "bulk_schedule_deletion" })
      expect(lookup.body).toMatchObject({ logs: expect.arrayContaining([expect.objectContaining({ action: "user.bulk_schedule_deletion" })]) })
    }))

  it.effect("terminate-sessions: counts and ends every session of the user, the gateway's too", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* api.register()
      const other = yield* api.register()
      const second = field((yield* login(user.email)).body, "token")
      const gateway = (yield* identified(second)).client
      const reply = yield* post("/admin/users/terminate-sessions", { user_id: user.userId })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      expect(reply.body).toEqual({ terminated_count: 2 })
      assert.strictEqual(yield* me(user.token), 401)
      assert.strictEqual(yield* me(second), 401)
      expect(yield* gateway.closed).toMatchObject({ code: 4004 })
      assert.strictEqual(yield* me(other.token), 200)
      // Not a ban: the user signs in again.
      assert.strictEqual((yield* login(user.email)).status, 200)
      expect((yield* auditActions(user.userId)).map((l) => l.action)).toContain("user.terminate_sessions")
    }))

  it.effect("disable-mfa: TOTP and backup codes go, the next login needs no second step", () =>
    Effect.gen(function*() {
      const user = yield* userWithTotp
      const reply = yield* post("/admin/users/disable-mfa", { user_id: user.userId })
      assert.strictEqual(reply.status, 204, JSON.stringify(reply.body))
      const viewed = yield* post("/admin/users/set-acls", { user_id: user.userId, acls: [] })
      expect(userOf(viewed)).toMatchObject({ has_totp: false, authenticator_types: [] })
      const self = yield* Effect.flatMap(TestApi, (api) => api.request("GET", "/users/@me", { token: user.token }))
      expect(self.body).toMatchObject({ mfa_enabled: false, authenticator_types: [] })
      const again = yield* login(user.email)
      assert.strictEqual(again.status, 200)
      assert.isString(field(again.body, "token"))
      expect((yield* auditActions(user.userId)).map((l) => l.action)).toContain("user.disable_mfa")
    }))

  it.effect("delete-webauthn-credential: the user's key goes; an unknown one is UNKNOWN_WEBAUTHN_CREDENTIAL", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* api.register()
      const { id } = yield* addSecurityKey(user.token, "Key")

      expectError(yield* post("/admin/users/delete-webauthn-credential", { user_id: user.userId, credential_id: "nope" }), 404, "UNKNOWN_WEBAUTHN_CREDENTIAL")
      const other = yield* api.register()
      expectError(yield* post("/admin/users/delete-webauthn-credential", { user_id: other.userId, credential_id: id }), 404, "UNKNOWN_WEBAUTHN_CREDENTIAL")
      const deleted = yield* post("/admin/users/delete-webauthn-credential", { user_id: user.userId, credential_id: id })
      assert.strictEqual(deleted.status, 204, JSON.stringify(deleted.body))
      const after = yield* api.request("GET", "/users/@me/mfa/webauthn/credentials", { token: user.token })
      expect(after.body).toEqual([])
      const self = yield* api.request("GET", "/users/@me", { token: user.token })
      expect(self.body).toMatchObject({ mfa_enabled: false })
    }))

  it.effect("cancel-bulk-message-deletion: the user's pending message deletion goes, their own view with it", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* api.register()
      const asked = yield* api.request("POST", "/users/@me/messages/delete", { token: user.token, body: { password: PASSWORD } })
      assert.strictEqual(asked.status, 204, JSON.stringify(asked.body))
      const before = userOf(yield* post("/admin/users/set-acls", { user_id: user.userId, acls: [] }))
      assert.isString(before.pending_bulk_message_deletion_at)

      const cancelled = userOf(yield* post("/admin/users/cancel-bulk-message-deletion", { user_id: user.userId }))
      assert.isNull(cancelled.pending_bulk_message_deletion_at)
      const self = yield* api.request("GET", "/users/@me", { token: user.token })
      expect(self.body).toMatchObject({ pending_bulk_message_deletion: null })
      // Nothing to cancel is no error.
      userOf(yield* post("/admin/users/cancel-bulk-message-deletion", { user_id: user.userId }))
      expect((yield* auditActions(user.userId)).map((l) => l.action)).toContain("user.cancel_bulk_message_deletion")
    }))
})
