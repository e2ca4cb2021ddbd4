import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestApi } from "../support/Api.ts"
import { createGuild } from "../support/Cast.ts"

/** Settings a guild always has: null for one is refused as the bad field it is, never a 500. */
const NOT_NULLABLE = [
  "name", "afk_timeout", "verification_level", "features", "nsfw", "system_channel_flags", "default_message_notifications",
  "mfa_level", "nsfw_level", "content_warning_level", "explicit_content_filter", "splash_card_alignment"
]

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("PATCH /guilds/{id} with null", (it) => {
  it.effect("null for a setting that may not be null is 400 INVALID_FORM_BODY naming it; a nullable one clears", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId } = yield* createGuild(owner.token)
      for (const key of NOT_NULLABLE) {
        const reply = yield* api.request("PATCH", `/guilds/${guildId}`, { token: owner.token, body: { [key]: null } })
        assert.strictEqual(reply.status, 400, `${key}: ${JSON.stringify(reply.body)}`)
        expect(reply.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: key }] })
      }
      const cleared = yield* api.request("PATCH", `/guilds/${guildId}`, { token: owner.token, body: { afk_channel_id: null, icon: null } })
      assert.strictEqual(cleared.status, 200, JSON.stringify(cleared.body))
      expect(cleared.body).toMatchObject({ name: "The Hall", afk_channel_id: null, icon: null })
    }))
})
