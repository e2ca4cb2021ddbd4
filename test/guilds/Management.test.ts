import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { expectError, TestApi } from "../support/Api.ts"
import { cast, createGuild } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"
import { SUDO_HEADER, stepNow, sudoTokenOf, totpAt, userWithTotp } from "../mfa/Support.ts"
import { auditEntries } from "../support/Audit.ts"

const PASSWORD = "correct horse battery"

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("guild ownership and deletion", (it) => {
  it.effect("transfers ownership to a member, with the password, and audits it", () =>
    Effect.gen(function*() {
      const { api, owner, member: heir, guildId: id } = yield* cast()

      const moved = yield* api.request("POST", `/guilds/${id}/transfer-ownership`, {
        token: owner.token,
        body: { new_owner_id: heir.userId, password: PASSWORD },
        headers: { "x-audit-log-reason": "stepping%20down" }
      })
      assert.strictEqual(moved.status, 200, JSON.stringify(moved.body))
      expect(moved.body).toMatchObject({ id, owner_id: heir.userId })
      const seen = yield* api.request("GET", `/guilds/${id}`, { token: heir.token })
      expect(seen.body).toMatchObject({ owner_id: heir.userId })
      const stored = yield* queryAt(api.databaseUrl, "SELECT owner_id::text AS owner_id FROM guilds WHERE id = $1", [id])
      assert.deepStrictEqual(stored, [{ owner_id: heir.userId }])

      const [entry] = yield* auditEntries(id)
      assert.deepStrictEqual(entry, {
        user_id: owner.userId,
        action_type: 1,
        target_id: id,
        reason: "stepping down",
        changes: [{ key: "owner_id", old_value: owner.userId, new_value: heir.userId }]
      })

      // The former owner is an ordinary member now.
      const back = yield* api.request("POST", `/guilds/${id}/transfer-ownership`, {
        token: owner.token,
        body: { new_owner_id: owner.userId, password: PASSWORD }
      })
      expectError(back, 403, "MISSING_PERMISSIONS")
    }))

  it.effect("refuses bad transfers: input, proof, non-members, strangers", () =>
    Effect.gen(function*() {
      const { api, owner, member: admin, stranger, guildId: id } = yield* cast({ memberPermissions: Permission.ADMINISTRATOR })
      const transfer = (token: string, body: unknown) =>
        api.request("POST", `/guilds/${id}/transfer-ownership`, { token, body })

      const malformed = yield* transfer(owner.token, { new_owner_id: "not-an-id", password: PASSWORD })
      assert.strictEqual(malformed.status, 400)
      expect(malformed.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "new_owner_id" }] })
      const wrongPassword = yield* transfer(owner.token, { new_owner_id: admin.userId, password: "not it at all" })
      assert.strictEqual(wrongPassword.status, 400)
      expect(wrongPassword.body).toMatchObject({ errors: [{ path: "password", code: "INVALID_PASSWORD" }] })
      const noProof = yield* transfer(owner.token, { new_owner_id: admin.userId })
      assert.strictEqual(noProof.status, 403)
      expect(noProof.body).toMatchObject({ code: "SUDO_MODE_REQUIRED", has_mfa: false })
      const toSelf = yield* transfer(owner.token, { new_owner_id: owner.userId, password: PASSWORD })
      assert.strictEqual(toSelf.status, 400)
      const outsider = yield* transfer(owner.token, { new_owner_id: stranger.userId, password: PASSWORD })
      expectError(outsider, 404, "UNKNOWN_MEMBER")

      // Administrators are not owners; strangers are not even members.
      const byAdmin = yield* transfer(admin.token, { new_owner_id: admin.userId, password: PASSWORD })
      expectError(byAdmin, 403, "MISSING_PERMISSIONS")
      const byStranger = yield* transfer(stranger.token, { new_owner_id: stranger.userId, password: PASSWORD })
      expectError(byStranger, 403, "MISSING_ACCESS")

      const stored = yield* queryAt(api.databaseUrl, "SELECT owner_id::text AS owner_id FROM guilds WHERE id = $1", [id])
      assert.deepStrictEqual(stored, [{ owner_id: owner.userId }])
      assert.deepStrictEqual(yield* auditEntries(id), [])
    }))

  it.effect("deletes the guild and everything under it, for the owner with the password", () =>
    Effect.gen(function*() {
      const { api, owner, member, guildId: id } = yield* cast()
      const listed = yield* api.request("GET", "/users/@me/guilds", { token: member.token })
      expect(listed.body).toMatchObject([{ id }])
      yield* api.request("PATCH", `/guilds/${id}`, { token: owner.token, body: { name: "Doomed" } })

      const deleted = yield* api.request("POST", `/guilds/${id}/delete`, { token: owner.token, body: { password: PASSWORD } })
      assert.strictEqual(deleted.status, 204, JSON.stringify(deleted.body))

      const gone = yield* api.request("GET", `/guilds/${id}`, { token: owner.token })
      expectError(gone, 404, "UNKNOWN_GUILD")
      const patch = yield* api.request("PATCH", `/guilds/${id}`, { token: owner.token, body: { name: "Back" } })
      assert.strictEqual(patch.status, 404)
      const again = yield* api.request("POST", `/guilds/${id}/delete`, { token: owner.token, body: { password: PASSWORD } })
      assert.strictEqual(again.status, 404)
      for (const table of ["guilds WHERE id", "guild_members WHERE guild_id", "guild_roles WHERE guild_id", "channels WHERE guild_id", "guild_audit_log_entries WHERE guild_id"]) {
        const rows = yield* queryAt(api.databaseUrl, `SELECT count(*)::int AS n FROM ${table} = $1`, [id])
        assert.deepStrictEqual(rows, [{ n: 0 }], table)
      }
      for (const who of [owner, member]) {
        const mine = yield* api.request("GET", "/users/@me/guilds", { token: who.token })
        assert.deepStrictEqual(mine.body, [])
      }
    }))

  it.effect("refuses deletion without the owner's proof", () =>
    Effect.gen(function*() {
      const { api, owner, member: admin, stranger, guildId: id } = yield* cast({ memberPermissions: Permission.ADMINISTRATOR })
      const remove = (token: string, body: unknown) => api.request("POST", `/guilds/${id}/delete`, { token, body })

      const malformed = yield* remove(owner.token, { password: 12 })
      assert.strictEqual(malformed.status, 400)
      expect(malformed.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "password" }] })
      const wrong = yield* remove(owner.token, { password: "not it at all" })
      assert.strictEqual(wrong.status, 400)
      expect(wrong.body).toMatchObject({ errors: [{ path: "password", code: "INVALID_PASSWORD" }] })
      const mfaWithoutMfa = yield* remove(owner.token, { mfa_method: "totp", mfa_code: "123456" })
      assert.strictEqual(mfaWithoutMfa.status, 403)
      expect(mfaWithoutMfa.body).toMatchObject({ code: "SUDO_MODE_REQUIRED", has_mfa: false })
      const byAdmin = yield* remove(admin.token, { password: PASSWORD })
      expectError(byAdmin, 403, "MISSING_PERMISSIONS")
      const byStranger = yield* remove(stranger.token, { password: PASSWORD })
      expectError(byStranger, 403, "MISSING_ACCESS")

      const still = yield* api.request("GET", `/guilds/${id}`, { token: owner.token })
      assert.strictEqual(still.status, 200)
      const rows = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM guilds WHERE id = $1", [id])
      assert.deepStrictEqual(rows, [{ n: 1 }])
    }))
})

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("guild feature toggles and vanity URL", (it) => {
  it.effect("switches DETACHED_BANNER and TEXT_CHANNEL_FLEXIBLE_NAMES on and off, audited", () =>
    Effect.gen(function*() {
      const { api, owner, member: manager, guildId: id } = yield* cast({ memberPermissions: Permission.MANAGE_GUILD })

      const banner = yield* api.request("PATCH", `/guilds/${id}/detached-banner`, { token: manager.token, body: { enabled: true } })
      assert.strictEqual(banner.status, 200, JSON.stringify(banner.body))
      expect(banner.body).toMatchObject({ id, features: ["DETACHED_BANNER"] })
      const names = yield* api.request("PATCH", `/guilds/${id}/text-channel-flexible-names`, {
        token: owner.token,
        body: { enabled: true }
      })
      expect(names.body).toMatchObject({ features: ["DETACHED_BANNER", "TEXT_CHANNEL_FLEXIBLE_NAMES"] })
      // Asking for what already holds changes nothing and leaves no entry.
      const same = yield* api.request("PATCH", `/guilds/${id}/detached-banner`, { token: owner.token, body: { enabled: true } })
      expect(same.body).toMatchObject({ features: ["DETACHED_BANNER", "TEXT_CHANNEL_FLEXIBLE_NAMES"] })
      const off = yield* api.request("PATCH", `/guilds/${id}/detached-banner`, { token: owner.token, body: { enabled: false } })
      expect(off.body).toMatchObject({ features: ["TEXT_CHANNEL_FLEXIBLE_NAMES"] })

      const stored = yield* queryAt(api.databaseUrl, "SELECT features FROM guilds WHERE id = $1", [id])
      assert.deepStrictEqual(stored, [{ features: ["TEXT_CHANNEL_FLEXIBLE_NAMES"] }])
      const entries = yield* auditEntries(id)
      assert.deepStrictEqual(entries.map((e) => [e.user_id, e.action_type, e.changes]), [
        [owner.userId, 1, [{ key: "features", old_value: ["DETACHED_BANNER", "TEXT_CHANNEL_FLEXIBLE_NAMES"], new_value: ["TEXT_CHANNEL_FLEXIBLE_NAMES"] }]],
        [owner.userId, 1, [{ key: "features", old_value: ["DETACHED_BANNER"], new_value: ["DETACHED_BANNER", "TEXT_CHANNEL_FLEXIBLE_NAMES"] }]],
        [manager.userId, 1, [{ key: "features", old_value: [], new_value: ["DETACHED_BANNER"] }]]
      ])
    }))

  it.effect("refuses toggles with a bad body or without MANAGE_GUILD", () =>
    Effect.gen(function*() {
      const { api, owner, member, stranger, guildId: id } = yield* cast()
      for (const path of ["detached-banner", "text-channel-flexible-names"]) {
        const bad = yield* api.request("PATCH", `/guilds/${id}/${path}`, { token: owner.token, body: { enabled: "yes" } })
        assert.strictEqual(bad.status, 400)
        expect(bad.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "enabled" }] })
        const missing = yield* api.request("PATCH", `/guilds/${id}/${path}`, { token: owner.token, body: {} })
        assert.strictEqual(missing.status, 400)
        const byMember = yield* api.request("PATCH", `/guilds/${id}/${path}`, { token: member.token, body: { enabled: true } })
        expectError(byMember, 403, "MISSING_PERMISSIONS")
        const byStranger = yield* api.request("PATCH", `/guilds/${id}/${path}`, { token: stranger.token, body: { enabled: true } })
        expectError(byStranger, 403, "MISSING_ACCESS")
      }
      assert.deepStrictEqual(yield* auditEntries(id), [])
    }))

  it.effect("sets, shows and clears a vanity code, unique across guilds, with its uses", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const rival = yield* api.register()
      const { guildId: id } = yield* createGuild(owner.token)
      const { guildId: other } = yield* createGuild(rival.token)
      const code = `hall-${id.slice(-6)}`

      const initial = yield* api.request("GET", `/guilds/${id}/vanity-url`, { token: owner.token })
      assert.strictEqual(initial.status, 200)
      assert.deepStrictEqual(initial.body, { code: null, uses: 0 })
      const set = yield* api.request("PATCH", `/guilds/${id}/vanity-url`, { token: owner.token, body: { code } })
      assert.strictEqual(set.status, 200, JSON.stringify(set.body))
      assert.deepStrictEqual(set.body, { code })
      const shown = yield* api.request("GET", `/guilds/${id}`, { token: owner.token })
      expect(shown.body).toMatchObject({ vanity_url_code: code })

      yield* queryAt(api.databaseUrl, "UPDATE guild_vanity_url_uses SET uses = 3 WHERE guild_id = $1", [id])
      const used = yield* api.request("GET", `/guilds/${id}/vanity-url`, { token: owner.token })
      assert.deepStrictEqual(used.body, { code, uses: 3 })

      const taken = yield* api.request("PATCH", `/guilds/${other}/vanity-url`, { token: rival.token, body: { code } })
      assert.strictEqual(taken.status, 400)
      expect(taken.body).toMatchObject({ errors: [{ path: "code", code: "VANITY_URL_CODE_TAKEN" }] })
      // Setting one's own code again is no conflict and no change.
      const same = yield* api.request("PATCH", `/guilds/${id}/vanity-url`, { token: owner.token, body: { code } })
      assert.deepStrictEqual(same.body, { code })

      const renamed = yield* api.request("PATCH", `/guilds/${id}/vanity-url`, { token: owner.token, body: { code: `${code}-2` } })
      assert.deepStrictEqual(renamed.body, { code: `${code}-2` })
      const fresh = yield* api.request("GET", `/guilds/${id}/vanity-url`, { token: owner.token })
      assert.deepStrictEqual(fresh.body, { code: `${code}-2`, uses: 0 })
      // The old code is free again.
      const claimed = yield* api.request("PATCH", `/guilds/${other}/vanity-url`, { token: rival.token, body: { code } })
      assert.deepStrictEqual(claimed.body, { code })
      const cleared = yield* api.request("PATCH", `/guilds/${id}/vanity-url`, { token: owner.token, body: { code: null } })
      assert.deepStrictEqual(cleared.body, { code: null })
      const none = yield* api.request("GET", `/guilds/${id}/vanity-url`, { token: owner.token })
      assert.deepStrictEqual(none.body, { code: null, uses: 0 })

      const entries = yield* auditEntries(id)
      assert.deepStrictEqual(entries.map((e) => e.changes), [
        [{ key: "vanity_url_code", old_value: `${code}-2`, new_value: null }],
        [{ key: "vanity_url_code", old_value: code, new_value: `${code}-2` }],
        [{ key: "vanity_url_code", old_value: null, new_value: code }]
      ])
    }))

  it.effect("refuses malformed codes and those without MANAGE_GUILD", () =>
    Effect.gen(function*() {
      const { api, owner, member, stranger, guildId: id } = yield* cast()
      for (const code of ["No Spaces", "x", "UPPER", "a".repeat(33), 5]) {
        const bad = yield* api.request("PATCH", `/guilds/${id}/vanity-url`, { token: owner.token, body: { code } })
        assert.strictEqual(bad.status, 400, String(code))
        expect(bad.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "code" }] })
      }
      for (const [who, expected] of [[member, "MISSING_PERMISSIONS"], [stranger, "MISSING_ACCESS"]] as const) {
        const get = yield* api.request("GET", `/guilds/${id}/vanity-url`, { token: who.token })
        assert.strictEqual(get.status, 403)
        expect(get.body).toMatchObject({ code: expected })
        const patch = yield* api.request("PATCH", `/guilds/${id}/vanity-url`, { token: who.token, body: { code: "mine" } })
        assert.strictEqual(patch.status, 403)
        expect(patch.body).toMatchObject({ code: expected })
      }
      assert.deepStrictEqual(yield* auditEntries(id), [])
    }))
})

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("guild deletion with MFA", (it) => {
  it.effect("takes a TOTP code (not the password) from an owner with MFA, or a sudo token", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* userWithTotp
      const { guildId: first } = yield* createGuild(owner.token)
      const { guildId: second } = yield* createGuild(owner.token)

      const byPassword = yield* api.request("POST", `/guilds/${first}/delete`, { token: owner.token, body: { password: PASSWORD } })
      assert.strictEqual(byPassword.status, 403)
      expect(byPassword.body).toMatchObject({ code: "SUDO_MODE_REQUIRED", has_mfa: true })
      const wrongCode = yield* api.request("POST", `/guilds/${first}/delete`, {
        token: owner.token,
        body: { mfa_method: "totp", mfa_code: "000000" }
      })
      assert.strictEqual(wrongCode.status, 400)
      expect(wrongCode.body).toMatchObject({ errors: [{ path: "mfa_code", code: "INVALID_MFA_CODE" }] })

      const step = stepNow() === owner.usedStep ? owner.usedStep + 1 : stepNow()
      const byCode = yield* api.request("POST", `/guilds/${first}/delete`, {
        token: owner.token,
        body: { mfa_method: "totp", mfa_code: totpAt(owner.secret, step) }
      })
      assert.strictEqual(byCode.status, 204, JSON.stringify(byCode.body))
      const bySudo = yield* api.request("POST", `/guilds/${second}/delete`, {
        token: owner.token,
        body: {},
        headers: { [SUDO_HEADER]: sudoTokenOf(byCode) }
      })
      assert.strictEqual(bySudo.status, 204, JSON.stringify(bySudo.body))
      for (const id of [first, second]) {
        const gone = yield* api.request("GET", `/guilds/${id}`, { token: owner.token })
        assert.strictEqual(gone.status, 404)
      }
    }))
})

// With local reads off every read goes through the actor: it, not only this process's copy, forgets the guild.
layer(TestApi.layerWith({ ACTOR_LOCAL_READS: "off" }), { timeout: 120_000, excludeTestServices: true })(
  "guild deletion through the actor's mailbox",
  (it) => {
    it.effect("the actor answers UNKNOWN_GUILD once the guild is deleted", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const owner = yield* api.register()
        const { guildId: id } = yield* createGuild(owner.token)
        const deleted = yield* api.request("POST", `/guilds/${id}/delete`, { token: owner.token, body: { password: PASSWORD } })
        assert.strictEqual(deleted.status, 204)
        for (const path of [`/guilds/${id}`, `/guilds/${id}/members`, `/guilds/${id}/vanity-url`, `/guilds/${id}/audit-logs`]) {
          const reply = yield* api.request("GET", path, { token: owner.token })
          assert.strictEqual(reply.status, 404, path)
          expect(reply.body).toMatchObject({ code: "UNKNOWN_GUILD" })
        }
      }))
  }
)
