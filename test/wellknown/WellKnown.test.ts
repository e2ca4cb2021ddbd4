import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestApi } from "../support/Api.ts"
import { defaultsHash } from "../../src/wellknown/Document.ts"

const settings = {
  PUBLIC_URL: "https://chat.example.test",
  GATEWAY_URL: "wss://gateway.example.test/socket",
  GIFA_API_KEY: "a-key",
  VOICE_SECRET_KEY: "11".repeat(32)
}

layer(TestApi.layerWith(settings), { timeout: 120_000, excludeTestServices: true })("GET /.well-known/service", (it) => {
  it.effect("tells anyone where this deployment is and what it offers, from its settings, and follows its limits", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const reply = yield* t.request("GET", "/.well-known/service")
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      expect(reply.body).toMatchObject({
        api_code_version: 1,
        endpoints: {
          api: "https://chat.example.test",
          gateway: "wss://gateway.example.test/socket",
          media: "https://chat.example.test",
          admin: "https://chat.example.test/admin/console"
        },
        features: { self_hosted: true, emails_enabled: false, voice_enabled: false },
        gif: { provider: "gifa" },
        services: { gif_enabled: true },
        sso: { enabled: false, redirect_uri: "https://chat.example.test/auth/sso/callback" },
        limits: { version: 2, defaultsHash, rules: [{ id: "default", overrides: { max_message_length: 2000 } }, { id: "more_emoji" }, { id: "more_stickers" }] }
      })
      // A credential is not needed, and a bad one is not looked at.
      assert.strictEqual((yield* t.request("GET", "/.well-known/service", { token: "nonsense" })).status, 200)

      const updated = yield* t.request("POST", "/admin/limit-config/update", {
        token: `Admin ${t.adminKey}`,
        body: { limit_config: { traitDefinitions: ["premium"], rules: [{ id: "premium", filters: { traits: ["premium"] }, limits: { max_guilds: 200 } }] } }
      })
      assert.strictEqual(updated.status, 200)
      const after = yield* t.request("GET", "/.well-known/service")
      assert.deepStrictEqual((after.body as { limits: unknown }).limits, {
        version: 2,
        traitDefinitions: ["premium"],
        rules: [{ id: "premium", filters: { traits: ["premium"] }, overrides: { max_guilds: 200 } }],
        defaultsHash
      })

      // Voice is on once a region has an active media server.
      const admin = { token: `Admin ${t.adminKey}` }
      const region = yield* t.request("POST", "/admin/voice/regions/create", {
        ...admin,
        body: { id: "eu-west", name: "EU West", emoji: "x", latitude: 48.85, longitude: 2.35, is_default: true }
      })
      assert.strictEqual(region.status, 200, JSON.stringify(region.body))
      const server = yield* t.request("POST", "/admin/voice/servers/create", {
        ...admin,
        body: { region_id: "eu-west", server_id: "lk-1", endpoint: "wss://lk-1.example.test", api_key: "APIkey", api_secret: "a-secret-of-the-media-server" }
      })
      assert.strictEqual(server.status, 200, JSON.stringify(server.body))
      const withVoice = yield* t.request("GET", "/.well-known/service")
      expect(withVoice.body).toMatchObject({ features: { voice_enabled: true } })
    }))
})
