import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, field, TestApi } from "../support/Api.ts"

/** A 1×1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
const STREAM = 1 << 9

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("stream previews", (it) => {
  it.effect("the streamer uploads, those who may watch fetch it; others 403, bad keys and images 400, anonymous 401", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const owner = yield* t.register()
      const member = yield* t.register()
      const stranger = yield* t.register()
      const guildId = field((yield* t.request("POST", "/guilds", { token: owner.token, body: { name: "Streams" } })).body, "id")
      const voice = yield* t.request("POST", `/guilds/${guildId}/channels`, { token: owner.token, body: { name: "Voice", type: 2 } })
      const voiceId = field(voice.body, "id")
      const invite = yield* t.request("POST", `/channels/${voiceId}/invites`, { token: owner.token, body: {} })
      assert.strictEqual((yield* t.request("POST", `/invites/${field(invite.body, "code")}`, { token: member.token })).status, 200)

      const key = `${guildId}:${voiceId}:conn-1`
      const path = `/streams/${encodeURIComponent(key)}/preview`
      const upload = (token: string, body: unknown, at = path) => t.request("POST", at, { token, body })
      const fetchPreview = (token: string, at = path) =>
        Effect.promise(() => fetch(`${t.baseUrl}${at}`, { headers: { authorization: token } }))

      // Nothing yet.
      expectError(yield* t.request("GET", path, { token: member.token }), 404, "UNKNOWN_STREAM_PREVIEW")
      assert.strictEqual((yield* upload(owner.token, { channel_id: voiceId, thumbnail: PNG, content_type: "image/jpeg" })).status, 204)
      const fetched = yield* fetchPreview(member.token)
      assert.strictEqual(fetched.status, 200)
      // The type the bytes say, not the one claimed.
      assert.strictEqual(fetched.headers.get("content-type"), "image/png")
      assert.strictEqual(fetched.headers.get("cache-control"), "no-store, private")
      const bytes = Buffer.from(yield* Effect.promise(() => fetched.arrayBuffer()))
      assert.strictEqual(bytes.toString("base64"), PNG)
      // A data URL as a canvas gives it is taken too.
      assert.strictEqual((yield* upload(member.token, { channel_id: voiceId, thumbnail: `data:image/png;base64,${PNG}` })).status, 204)

      // Outside the guild: neither fetch nor upload.
      expectError(yield* t.request("GET", path, { token: stranger.token }), 403, "MISSING_ACCESS")
      expectError(yield* upload(stranger.token, { channel_id: voiceId, thumbnail: PNG }), 403, "MISSING_ACCESS")
      // Without STREAM in the channel a member still watches, but sends no preview.
      const denied = yield* t.request("PUT", `/channels/${voiceId}/permissions/${guildId}`, {
        token: owner.token,
        body: { type: 0, allow: "0", deny: String(STREAM) }
      })
      assert.strictEqual(denied.status, 204, JSON.stringify(denied.body))
      expectError(yield* upload(member.token, { channel_id: voiceId, thumbnail: PNG }), 403, "MISSING_PERMISSIONS")
      assert.strictEqual((yield* fetchPreview(member.token)).status, 200)

      // Bad keys, mismatches and payloads.
      for (const bad of ["nonsense", `${guildId}:${voiceId}`, `abc:${voiceId}:c`, `${guildId}:${voiceId}:c:d`, `${guildId}:${voiceId}:bad key`]) {
        expectError(yield* t.request("GET", `/streams/${encodeURIComponent(bad)}/preview`, { token: owner.token }), 400, "INVALID_STREAM_KEY_FORMAT")
      }
      expectError(yield* upload(owner.token, { channel_id: guildId, thumbnail: PNG }), 400, "STREAM_KEY_CHANNEL_MISMATCH")
      expectError(
        yield* upload(owner.token, { channel_id: voiceId, thumbnail: PNG }, `/streams/${encodeURIComponent(`dm:${voiceId}:c`)}/preview`),
        400,
        "STREAM_KEY_SCOPE_MISMATCH"
      )
      expectError(yield* upload(owner.token, { channel_id: voiceId, thumbnail: "not base64!" }), 400, "INVALID_STREAM_THUMBNAIL_PAYLOAD")
      expectError(
        yield* upload(owner.token, { channel_id: voiceId, thumbnail: Buffer.from("plain text, not an image").toString("base64") }),
        400,
        "INVALID_STREAM_THUMBNAIL_PAYLOAD"
      )
      expectError(yield* upload(owner.token, { channel_id: voiceId }), 400, "INVALID_FORM_BODY")
      expectError(yield* upload(owner.token, { channel_id: voiceId, thumbnail: "A".repeat(900_001) }), 400, "INVALID_FORM_BODY")
      // Past the server's cap on any body.
      expectError(yield* upload(owner.token, { channel_id: voiceId, thumbnail: "A".repeat(1_100_000) }), 413, "PAYLOAD_TOO_LARGE")

      // Anonymous.
      assert.strictEqual((yield* t.request("GET", path)).status, 401)
      assert.strictEqual((yield* t.request("POST", path, { body: { channel_id: voiceId, thumbnail: PNG } })).status, 401)
    }))

  it.effect("in a DM call: its recipients only", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const owner = yield* t.register()
      const member = yield* t.register()
      const stranger = yield* t.register()
      const guildId = field((yield* t.request("POST", "/guilds", { token: owner.token, body: { name: "Shared" } })).body, "id")
      const channels = yield* t.request("GET", `/guilds/${guildId}/channels`, { token: owner.token })
      const textId = (channels.body as ReadonlyArray<{ id: string; type: number }>).find((c) => c.type === 0)?.id ?? ""
      const invite = yield* t.request("POST", `/channels/${textId}/invites`, { token: owner.token, body: {} })
      yield* t.request("POST", `/invites/${field(invite.body, "code")}`, { token: member.token })
      const dm = yield* t.request("POST", "/users/@me/channels", { token: owner.token, body: { recipient_id: member.userId } })
      const dmId = field(dm.body, "id")

      const path = `/streams/${encodeURIComponent(`dm:${dmId}:c1`)}/preview`
      assert.strictEqual((yield* t.request("POST", path, { token: owner.token, body: { channel_id: dmId, thumbnail: PNG } })).status, 204)
      const seen = yield* Effect.promise(() => fetch(`${t.baseUrl}${path}`, { headers: { authorization: member.token } }))
      assert.strictEqual(seen.status, 200)
      assert.strictEqual(seen.headers.get("content-type"), "image/png")
      assert.strictEqual((yield* t.request("GET", path, { token: stranger.token })).status, 403)
      // A guild key naming a DM channel.
      expectError(yield* t.request("GET", `/streams/${encodeURIComponent(`${guildId}:${dmId}:c1`)}/preview`, { token: owner.token }), 400, "STREAM_KEY_SCOPE_MISMATCH")
    }))
})
