import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { dataOf, identified, nextOfType } from "../gateway/Client.ts"
import { fieldCode, guildWithChannel } from "../messages/Fixtures.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"
import { ok, request, user } from "./Fixtures.ts"

layer(TestApi.layer, { timeout: 180_000, excludeTestServices: true })("PATCH /channels/{id}/call", (it) => {
  it.effect("a recipient sets the call's region; every recipient hears CALL_UPDATE; it is stored", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const alice = yield* user
      const bob = yield* user
      const channelId = field(ok(yield* request("POST", "/users/@me/channels", alice.token, { recipient_id: bob.userId })), "id")
      const { client: bobGateway } = yield* identified(bob.token)
      const storedRegion = Effect.map(
        queryAt(api.databaseUrl, "SELECT region FROM dm_calls WHERE channel_id = $1", [channelId]),
        (rows) => rows.map((r) => r.region)
      )

      // No call yet: nothing to update.
      expectError(yield* request("PATCH", `/channels/${channelId}/call`, alice.token, { region: "europe" }), 404, "NO_ACTIVE_CALL")

      ok(yield* request("POST", `/channels/${channelId}/call/ring`, alice.token, {}), 204)
      expect(dataOf(yield* nextOfType(bobGateway, "CALL_CREATE"))).toMatchObject({ channel_id: channelId, region: null })

      ok(yield* request("PATCH", `/channels/${channelId}/call`, bob.token, { region: "europe" }), 204)
      expect(dataOf(yield* nextOfType(bobGateway, "CALL_UPDATE"))).toEqual({
        channel_id: channelId,
        message_id: null,
        region: "europe",
        ringing: [bob.userId],
        voice_states: []
      })
      assert.deepStrictEqual(yield* storedRegion, ["europe"])

      // An update that changes nothing (no region in the body) is accepted and told to nobody:
      // the next CALL_UPDATE Bob hears is the one after it.
      ok(yield* request("PATCH", `/channels/${channelId}/call`, alice.token, { latitude: "1.5", longitude: "2" }), 204)
      // Back to automatic: null.
      ok(yield* request("PATCH", `/channels/${channelId}/call`, alice.token, { region: null }), 204)
      expect(dataOf(yield* nextOfType(bobGateway, "CALL_UPDATE"))).toMatchObject({ channel_id: channelId, region: null })
      assert.deepStrictEqual(yield* storedRegion, [null])

      // Ending the call forgets its region; a call that is over cannot be updated.
      ok(yield* request("PATCH", `/channels/${channelId}/call`, alice.token, { region: "asia" }), 204)
      expect(dataOf(yield* nextOfType(bobGateway, "CALL_UPDATE"))).toMatchObject({ region: "asia" })
      ok(yield* request("POST", `/channels/${channelId}/call/end`, alice.token), 204)
      expect(dataOf(yield* nextOfType(bobGateway, "CALL_DELETE"))).toEqual({ channel_id: channelId })
      assert.deepStrictEqual(yield* storedRegion, [])
      expectError(yield* request("PATCH", `/channels/${channelId}/call`, alice.token, { region: "asia" }), 404, "NO_ACTIVE_CALL")
    }))

  it.effect("bad input: an unknown region, a wrong type, an empty or too long name", () =>
    Effect.gen(function*() {
      const alice = yield* user
      const bob = yield* user
      const channelId = field(ok(yield* request("POST", "/users/@me/channels", alice.token, { recipient_id: bob.userId })), "id")
      ok(yield* request("POST", `/channels/${channelId}/call/ring`, alice.token, {}), 204)

      const unknownRegion = yield* request("PATCH", `/channels/${channelId}/call`, alice.token, { region: "mars" })
      expectError(unknownRegion, 400, "INVALID_FORM_BODY")
      assert.strictEqual(fieldCode(unknownRegion), "INVALID_RTC_REGION")
      for (const body of [{ region: 5 }, { region: "" }, { region: "x".repeat(65) }, { latitude: 1 }]) {
        expectError(yield* request("PATCH", `/channels/${channelId}/call`, alice.token, body), 400, "INVALID_FORM_BODY")
      }
      expectError(yield* request("PATCH", "/channels/not-a-channel/call", alice.token, { region: "europe" }), 400, "INVALID_FORM_BODY")
    }))

  it.effect("forbidden and unknown: outsiders, guild channels, unknown channels, no token", () =>
    Effect.gen(function*() {
      const alice = yield* user
      const bob = yield* user
      const carol = yield* user
      const channelId = field(ok(yield* request("POST", "/users/@me/channels", alice.token, { recipient_id: bob.userId })), "id")
      ok(yield* request("POST", `/channels/${channelId}/call/ring`, alice.token, {}), 204)

      expectError(yield* request("PATCH", `/channels/${channelId}/call`, carol.token, { region: "europe" }), 403, "MISSING_ACCESS")
      expectError(yield* request("PATCH", `/channels/${channelId}/call`, "", { region: "europe" }), 401, "UNAUTHORIZED")
      expectError(yield* request("PATCH", "/channels/4242/call", alice.token, { region: "europe" }), 404, "UNKNOWN_CHANNEL")
      const { owner, channelId: guildChannel } = yield* guildWithChannel
      expectError(
        yield* request("PATCH", `/channels/${guildChannel}/call`, owner.token, { region: "europe" }),
        400,
        "INVALID_CHANNEL_TYPE_FOR_CALL"
      )
    }))
})
