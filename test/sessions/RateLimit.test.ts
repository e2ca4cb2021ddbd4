import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestApi } from "../support/Api.ts"

layer(TestApi.layerWithOutside({ RATE_LIMITS: "on" }), { timeout: 120_000, excludeTestServices: true })("session and account rate limits", (it) => {
  it.effect("limits handoff codes per address", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const replies = []
      for (let i = 0; i < 11; i++) replies.push(yield* api.request("POST", "/auth/handoff/initiate"))
      assert.deepStrictEqual(replies.map((r) => r.status), [...Array<number>(10).fill(200), 429])
      assert.strictEqual(replies[0]?.headers.get("x-ratelimit-bucket"), "sessions.handoff-initiate")
      expect(replies[10]?.body).toMatchObject({ code: "RATE_LIMITED", global: false })
    }))

  it.effect("counts the signed-in routes per user", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const them = yield* api.register()
      const attempt = (token: string) =>
        api.request("POST", "/users/@me/password-change/verify", { token, body: { ticket: "x", code: "AAAA-AAAA" } })
      const mine = []
      for (let i = 0; i < 11; i++) mine.push(yield* attempt(me.token))
      assert.deepStrictEqual(mine.map((r) => r.status), [...Array<number>(10).fill(400), 429])
      assert.strictEqual(mine[0]?.headers.get("x-ratelimit-bucket"), "account.password-change.verify")
      // Another account from the same address has its own count.
      assert.strictEqual((yield* attempt(them.token)).status, 400)

      const list = yield* api.request("GET", "/auth/sessions", { token: me.token })
      assert.strictEqual(list.status, 200)
      assert.strictEqual(list.headers.get("x-ratelimit-bucket"), "sessions.list")
    }))
})
