import { assert, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { expectError, field, TestApi } from "../../support/Api.ts"
import { setAcls } from "../../support/Acls.ts"
import { FakeDns } from "../../support/FakeDns.ts"

const admin = (key: string) => `Admin ${key}`
const from = (address: string) => ({ "x-forwarded-for": address })
const newEmail = () => `b${randomUUID().slice(0, 8)}@example.com`
const newPhone = () => `+1415${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`

/** The server believes X-Forwarded-For from the test (127.0.0.1), and asks the fake DNS server for names. */
const dns = FakeDns.layer({ "192.0.2.10": "ten.example.test", "2001:db8:aa::10": "six.example.test", "203.0.113.77": "home.example.test" })
const api = Layer.unwrap(Effect.map(FakeDns, (fake) =>
  TestApi.layerWith({ TRUSTED_PROXIES: "127.0.0.1, ::1", DNS_SERVER: fake.server }))).pipe(Layer.provideMerge(dns))

const asAdmin = (path: string, body?: unknown, headers?: Record<string, string>) =>
  Effect.flatMap(TestApi, (t) => t.request("POST", path, { token: admin(t.adminKey), body, headers }))

interface Case {
  readonly path: string
  readonly body: () => unknown
  readonly bad?: unknown
  readonly status: number
}

/** Every route of the group: a good body (and its status), and a bad one. */
const cases: ReadonlyArray<Case> = [
  { path: "/admin/bans/email/add", body: () => ({ email: newEmail() }), bad: { email: "not an email" }, status: 204 },
  { path: "/admin/bans/email/remove", body: () => ({ email: newEmail() }), bad: { email: 5 }, status: 204 },
  { path: "/admin/bans/email/check", body: () => ({ email: newEmail() }), bad: {}, status: 200 },
  { path: "/admin/bans/email/list", body: () => ({}), bad: { limit: 0 }, status: 200 },
  { path: "/admin/bans/ip/add", body: () => ({ ip: "192.0.2.250" }), bad: { ip: "999.1.1.1" }, status: 204 },
  { path: "/admin/bans/ip/remove", body: () => ({ ip: "192.0.2.250" }), bad: { ip: "192.0.2.0/33" }, status: 204 },
  { path: "/admin/bans/ip/check", body: () => ({ ip: "192.0.2.250" }), bad: { ip: "" }, status: 200 },
  { path: "/admin/bans/ip/list", body: () => ({ limit: 5 }), bad: { limit: "all" }, status: 200 },
  { path: "/admin/bans/phone/add", body: () => ({ phone: newPhone() }), bad: { phone: "12345" }, status: 204 },
  { path: "/admin/bans/phone/remove", body: () => ({ phone: newPhone() }), bad: { phone: "+0123456789" }, status: 204 },
  { path: "/admin/bans/phone/check", body: () => ({ phone: newPhone() }), bad: { phone: null }, status: 200 },
  { path: "/admin/bans/phone/list", body: () => ({}), bad: { limit: 10_001 }, status: 200 },
  {
    path: "/admin/snowflake-reservations/add",
    body: () => ({ email: newEmail(), snowflake: "100000000000000001" }),
    bad: { email: newEmail(), snowflake: "abc" },
    status: 200
  },
  { path: "/admin/snowflake-reservations/delete", body: () => ({ email: newEmail() }), bad: { email: "x" }, status: 200 },
  // Takes no body: there is no bad one.
  { path: "/admin/snowflake-reservations/list", body: () => undefined, status: 200 }
]

layer(api, { timeout: 120_000, excludeTestServices: true })("instance bans and reservations", (it) => {
  it.effect("every route: served to an operator, 400 on a bad body, 403 without its ACL, 401 anonymous", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const other = yield* t.register()
      // Reaches /admin, but holds none of these routes' ACLs.
      yield* setAcls(other.userId, ["admin:authenticate", "user:lookup"])
      for (const c of cases) {
        const ok = yield* asAdmin(c.path, c.body())
        assert.strictEqual(ok.status, c.status, `${c.path}: ${JSON.stringify(ok.body)}`)
        if (c.bad !== undefined) expectError(yield* asAdmin(c.path, c.bad), 400, "INVALID_FORM_BODY")
        expectError(yield* t.request("POST", c.path, { token: other.token, body: c.body() }), 403, "MISSING_PERMISSIONS")
        const anonymous = yield* t.request("POST", c.path, { body: c.body() })
        assert.strictEqual(anonymous.status, 401, c.path)
      }
      // A user given the route's ACL reaches it.
      yield* setAcls(other.userId, ["admin:authenticate", "ban:email:check"])
      const allowed = yield* t.request("POST", "/admin/bans/email/check", { token: other.token, body: { email: newEmail() } })
      assert.deepStrictEqual(allowed.body, { banned: false })
    }))

  it.effect("an IP range ban refuses registration, login and authenticated requests from inside it, and only there", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const register = (address: string, email = newEmail()) =>
        t.request("POST", "/auth/register", {
          body: { email, password: "correct horse battery", date_of_birth: "2000-01-01", consent: true },
          headers: from(address)
        })
      // Registered from outside the range, so that address is a known one for its logins.
      const email = newEmail()
      const registered = yield* register("203.0.113.5", email)
      const user = { email, token: field(registered.body, "token") }
      const login = (address: string) =>
        t.request("POST", "/auth/login", { body: { email: user.email, password: "correct horse battery" }, headers: from(address) })
      const me = (forwarded: string) => t.request("GET", "/users/@me", { token: user.token, headers: from(forwarded) })

      assert.strictEqual((yield* asAdmin("/admin/bans/ip/add", { ip: "198.51.100.0/24" })).status, 204)
      assert.strictEqual((yield* asAdmin("/admin/bans/ip/add", { ip: "2001:db8:bad::/48" })).status, 204)

      expectError(yield* register("198.51.100.7"), 403, "IP_BANNED")
      expectError(yield* login("198.51.100.7"), 403, "IP_BANNED")
      expectError(yield* me("198.51.100.7"), 403, "IP_BANNED")
      expectError(yield* me("::ffff:198.51.100.8"), 403, "IP_BANNED")
      expectError(yield* me("2001:db8:bad::1"), 403, "IP_BANNED")
      expectError(yield* t.request("GET", "/v1/users/@me", { token: user.token, headers: from("198.51.100.9") }), 403, "IP_BANNED")
      // Writing another address to the left of what the proxy appended does not get out of the ban...
      expectError(yield* me("203.0.113.5, 198.51.100.7"), 403, "IP_BANNED")
      // ...nor does writing a banned one put someone in it.
      assert.strictEqual((yield* me("198.51.100.7, 203.0.113.5")).status, 200)

      assert.strictEqual((yield* register("198.51.101.7")).status, 200)
      assert.strictEqual((yield* login("203.0.113.5")).status, 200)
      assert.strictEqual((yield* me("198.51.101.7")).status, 200)
      assert.strictEqual((yield* me("2001:db8:bae::1")).status, 200)

      // The operators' routes stay open to a banned address.
      const check = (ip: string) => asAdmin("/admin/bans/ip/check", { ip }, from("198.51.100.7"))
      assert.deepStrictEqual((yield* check("198.51.100.77")).body, { banned: true })
      assert.deepStrictEqual((yield* check("::ffff:198.51.100.77")).body, { banned: true })
      assert.deepStrictEqual((yield* check("198.51.100.128/25")).body, { banned: true })
      assert.deepStrictEqual((yield* check("198.51.101.1")).body, { banned: false })

      const listed = yield* asAdmin("/admin/bans/ip/list", {})
      expect(listed.body).toMatchObject({
        bans: expect.arrayContaining([{ ip: "198.51.100.0/24", reverse_dns: null }, { ip: "2001:db8:bad::/48", reverse_dns: null }])
      })
      const audited = yield* asAdmin("/admin/audit-logs/search", { target_id: "198.51.100.0/24" })
      expect(audited.body).toMatchObject({ logs: [{ action: "ban_ip", target_type: "ip", metadata: { ip: "198.51.100.0/24" } }] })

      // Lifted: served again at once.
      assert.strictEqual((yield* asAdmin("/admin/bans/ip/remove", { ip: "198.51.100.0/24" })).status, 204)
      assert.strictEqual((yield* asAdmin("/admin/bans/ip/remove", { ip: "2001:db8:bad::/48" })).status, 204)
      assert.strictEqual((yield* me("198.51.100.7")).status, 200)
      assert.deepStrictEqual((yield* check("198.51.100.77")).body, { banned: false })
    }))

  it.effect("a banned email cannot register; a banned phone number is not texted", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const email = newEmail()
      assert.strictEqual((yield* asAdmin("/admin/bans/email/add", { email: email.toUpperCase() })).status, 204)
      assert.deepStrictEqual((yield* asAdmin("/admin/bans/email/check", { email })).body, { banned: true })
      expect((yield* asAdmin("/admin/bans/email/list", {})).body).toMatchObject({ bans: expect.arrayContaining([email]) })
      const refused = yield* t.request("POST", "/auth/register", {
        body: { email, password: "correct horse battery", date_of_birth: "2000-01-01", consent: true }
      })
      expectError(refused, 403, "ACCESS_DENIED")
      // Nor become an account's address (an unverified one: the change starts with its proof).
      const mover = yield* t.register()
      const changePath = "/users/@me/email-change"
      const started = yield* t.request("POST", `${changePath}/start`, { token: mover.token, body: { password: "correct horse battery" } })
      assert.strictEqual(started.status, 200, JSON.stringify(started.body))
      const requested = yield* t.request("POST", `${changePath}/request-new`, {
        token: mover.token,
        body: { ticket: field(started.body, "ticket"), new_email: email, original_proof: field(started.body, "original_proof") }
      })
      expectError(requested, 403, "ACCESS_DENIED")
      const audited = yield* asAdmin("/admin/audit-logs/search", { target_id: email })
      expect(audited.body).toMatchObject({ logs: [{ action: "ban_email", metadata: { email } }] })
      assert.strictEqual((yield* asAdmin("/admin/bans/email/remove", { email })).status, 204)
      assert.deepStrictEqual((yield* asAdmin("/admin/bans/email/check", { email })).body, { banned: false })
      yield* t.register({ email })

      const phone = newPhone()
      assert.strictEqual((yield* asAdmin("/admin/bans/phone/add", { phone })).status, 204)
      assert.deepStrictEqual((yield* asAdmin("/admin/bans/phone/check", { phone })).body, { banned: true })
      expect((yield* asAdmin("/admin/bans/phone/list", {})).body).toMatchObject({ bans: expect.arrayContaining([phone]) })
      const user = yield* t.register()
      const send = yield* t.request("POST", "/users/@me/phone/send-verification", { token: user.token, body: { phone } })
      expectError(send, 403, "ACCESS_DENIED")
      assert.strictEqual((yield* asAdmin("/admin/bans/phone/remove", { phone })).status, 204)
      assert.deepStrictEqual((yield* asAdmin("/admin/bans/phone/check", { phone })).body, { banned: false })
    }))

  it.effect("a reserved email registers with its reserved id; a reservation whose id is taken gives a fresh one", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const email = newEmail()
      const snowflake = "123456789012345678"
      const added = yield* asAdmin("/admin/snowflake-reservations/add", { email: email.toUpperCase(), snowflake })
      assert.deepStrictEqual(added.body, { success: true })
      const listed = yield* asAdmin("/admin/snowflake-reservations/list")
      expect(listed.body).toMatchObject({ reservations: expect.arrayContaining([expect.objectContaining({ email, snowflake })]) })

      const registered = yield* t.register({ email })
      assert.strictEqual(registered.userId, snowflake)
      const me = yield* t.request("GET", "/users/@me", { token: registered.token })
      assert.strictEqual(field(me.body, "id"), snowflake)

      // The same id reserved for another email: taken, so that account gets another.
      const second = newEmail()
      yield* asAdmin("/admin/snowflake-reservations/add", { email: second, snowflake })
      const other = yield* t.register({ email: second })
      assert.notStrictEqual(other.userId, snowflake)

      for (const e of [email, second]) {
        assert.deepStrictEqual((yield* asAdmin("/admin/snowflake-reservations/delete", { email: e })).body, { success: true })
      }
      const after = yield* asAdmin("/admin/snowflake-reservations/list")
      assert.notInclude(JSON.stringify(after.body), email)
      const audited = yield* asAdmin("/admin/audit-logs/search", { target_id: email })
      expect(audited.body).toMatchObject({
        logs: [{ action: "delete_snowflake_reservation" }, { action: "set_snowflake_reservation", metadata: { email, snowflake } }]
      })
    }))

  it.effect("the IP ban list names banned addresses by their PTR records, from the configured DNS server", () =>
    Effect.gen(function*() {
      for (const ip of ["192.0.2.10", "192.0.2.11", "2001:db8:aa::10", "192.0.2.16/28"]) {
        assert.strictEqual((yield* asAdmin("/admin/bans/ip/add", { ip })).status, 204)
      }
      const listed = yield* asAdmin("/admin/bans/ip/list", {})
      expect(listed.body).toMatchObject({
        bans: expect.arrayContaining([
          { ip: "192.0.2.10", reverse_dns: "ten.example.test" },
          { ip: "192.0.2.11", reverse_dns: null },
          { ip: "2001:db8:aa::10", reverse_dns: "six.example.test" },
          { ip: "192.0.2.16/28", reverse_dns: null }
        ])
      })
      const fake = yield* FakeDns
      assert.include(fake.asked, "10.2.0.192.in-addr.arpa")
      const limited = yield* asAdmin("/admin/bans/ip/list", { limit: 1 })
      expect(limited.body).toMatchObject({ bans: [expect.objectContaining({ ip: expect.any(String) })] })
    }))

  it.effect("the admin user view names the user's last address by its PTR record", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const registered = yield* t.request("POST", "/auth/register", {
        body: { email: newEmail(), password: "correct horse battery", date_of_birth: "2000-01-01", consent: true },
        headers: from("203.0.113.77")
      })
      const userId = field(registered.body, "user_id")
      const found = yield* asAdmin("/admin/users/lookup", { user_ids: [userId] })
      expect(found.body).toMatchObject({
        users: [{ id: userId, last_active_ip: "203.0.113.77", last_active_ip_reverse: "home.example.test" }]
      })
    }))
})
