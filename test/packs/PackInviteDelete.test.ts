import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("DELETE /invites/{code} for a pack invite", (it) => {
  it.effect("only the pack's creator deletes it; then the code is gone", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const creator = yield* api.register()
      const holder = yield* api.register()
      const pack = yield* api.request("POST", "/packs/emoji", { token: creator.token, body: { name: "Revocable" } })
      assert.strictEqual(pack.status, 200, JSON.stringify(pack.body))
      const packId = field(pack.body, "id")
      const invite = yield* api.request("POST", `/packs/${packId}/invites`, { token: creator.token, body: {} })
      assert.strictEqual(invite.status, 200, JSON.stringify(invite.body))
      const code = field(invite.body, "code")
      // Holding the pack through its invite is not owning it.
      assert.strictEqual((yield* api.request("POST", `/invites/${code}`, { token: holder.token })).status, 200)

      expectError(yield* api.request("DELETE", `/invites/${code}`, { token: holder.token }), 403, "MISSING_PERMISSIONS")
      expectError(yield* api.request("DELETE", `/invites/${code}`), 401, "UNAUTHORIZED")
      expectError(yield* api.request("DELETE", "/invites/no-such-code-here", { token: creator.token }), 404, "UNKNOWN_INVITE")
      expectError(yield* api.request("DELETE", `/invites/${"x".repeat(200)}`, { token: creator.token }), 400, "INVALID_FORM_BODY")
      assert.strictEqual((yield* api.request("GET", `/invites/${code}`)).status, 200)

      const deleted = yield* api.request("DELETE", `/invites/${code}`, { token: creator.token })
      assert.strictEqual(deleted.status, 204, JSON.stringify(deleted.body))
      assert.deepStrictEqual(yield* queryAt(api.databaseUrl, "SELECT code FROM pack_invites WHERE code = $1", [code]), [])
      expectError(yield* api.request("GET", `/invites/${code}`), 404, "UNKNOWN_INVITE")
      expectError(yield* api.request("POST", `/invites/${code}`, { token: holder.token }), 404, "UNKNOWN_INVITE")
      expectError(yield* api.request("DELETE", `/invites/${code}`, { token: creator.token }), 404, "UNKNOWN_INVITE")
      const listed = yield* api.request("GET", `/packs/${packId}/invites`, { token: creator.token })
      assert.deepStrictEqual(listed.body, [])
      // The pack stays installed for whoever accepted before.
      const opened = yield* api.request("GET", `/packs/emojis/${packId}`, { token: holder.token })
      assert.strictEqual(opened.status, 200, JSON.stringify(opened.body))
    }))
})
