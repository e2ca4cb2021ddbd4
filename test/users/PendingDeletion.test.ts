import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { guildWithChannel, sent } from "../messages/Fixtures.ts"
import { expectError, TestApi } from "../support/Api.ts"

const PASSWORD = "correct horse battery"
const DELAY_SECONDS = 3600

const pendingOf = (body: unknown) =>
  typeof body === "object" && body !== null && "pending_bulk_message_deletion" in body ? body.pending_bulk_message_deletion : "absent"

// The job starts an hour after the request: it stays pending for the whole test.
layer(TestApi.layerWith({ MESSAGE_DELETION_DELAY_SECONDS: String(DELAY_SECONDS) }), {
  timeout: 120_000,
  excludeTestServices: true
})("pending_bulk_message_deletion", (it) => {
  it.effect("GET and PATCH /users/@me show the self-service deletion until it is cancelled", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, channelId } = yield* guildWithChannel
      yield* sent(owner.token, channelId, "one")
      yield* sent(owner.token, channelId, "two")

      const before = yield* api.request("GET", "/users/@me", { token: owner.token })
      assert.strictEqual(before.status, 200, JSON.stringify(before.body))
      assert.isNull(pendingOf(before.body))

      const askedAt = Date.now()
      const asked = yield* api.request("POST", "/users/@me/messages/delete", { token: owner.token, body: { password: PASSWORD } })
      assert.strictEqual(asked.status, 204, JSON.stringify(asked.body))

      const during = yield* api.request("GET", "/users/@me", { token: owner.token })
      assert.strictEqual(during.status, 200, JSON.stringify(during.body))
      const pending = pendingOf(during.body)
      expect(pending).toMatchObject({ channel_count: 1, message_count: 2 })
      const scheduledAt = typeof pending === "object" && pending !== null && "scheduled_at" in pending ? pending.scheduled_at : undefined
      assert.isString(scheduledAt)
      const startsIn = Date.parse(String(scheduledAt)) - askedAt
      assert.isTrue(Math.abs(startsIn - DELAY_SECONDS * 1000) < 60_000, `starts in ${startsIn} ms`)

      const patched = yield* api.request("PATCH", "/users/@me", { token: owner.token, body: { global_name: "Still Here" } })
      assert.strictEqual(patched.status, 200, JSON.stringify(patched.body))
      expect(pendingOf(patched.body)).toEqual(pending)

      const cancelled = yield* api.request("DELETE", "/users/@me/messages/delete", { token: owner.token })
      assert.strictEqual(cancelled.status, 200, JSON.stringify(cancelled.body))
      const after = yield* api.request("GET", "/users/@me", { token: owner.token })
      assert.isNull(pendingOf(after.body))

      expectError(yield* api.request("GET", "/users/@me"), 401, "UNAUTHORIZED")
    }))
})
