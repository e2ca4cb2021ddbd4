import { assert, expect } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, field, TestApi } from "../support/Api.ts"
import { cast, createGuild } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"
import { layerWithMedia } from "../media/MediaLayer.ts"
import { dataUri, gif, png, webp } from "../media/Fixtures.ts"
import { auditEntries } from "./Support.ts"

layerWithMedia("stickers")("guild stickers over HTTP", (it) => {
  it.effect("creates, lists, updates and deletes a sticker, with audit entries", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId } = yield* createGuild(owner.token)
      const created = yield* api.request("POST", `/guilds/${guildId}/stickers`, {
        token: owner.token,
        body: { name: "wave", description: "Hello there", tags: ["hi", "hello"], image: dataUri(gif(160, 160, 4), "image/gif") }
      })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const stickerId = field(created.body, "id")
      assert.deepStrictEqual(created.body, {
        id: stickerId,
        name: "wave",
        description: "Hello there",
        tags: ["hi", "hello"],
        animated: true,
        nsfw: false
      })
      const plain = yield* api.request("POST", `/guilds/${guildId}/stickers`, {
        token: owner.token,
        body: { name: "still", image: dataUri(webp(320, 320), "image/webp") }
      })
      expect(plain.body).toMatchObject({ name: "still", description: "", tags: [], animated: false })

      const listed = yield* api.request("GET", `/guilds/${guildId}/stickers`, { token: owner.token })
      expect(listed.body).toMatchObject([
        { id: stickerId, name: "wave", user: { id: owner.userId } },
        { name: "still", user: { id: owner.userId } }
      ])

      const updated = yield* api.request("PATCH", `/guilds/${guildId}/stickers/${stickerId}`, {
        token: owner.token,
        body: { name: "big_wave", tags: ["wave"] }
      })
      assert.strictEqual(updated.status, 200, JSON.stringify(updated.body))
      expect(updated.body).toMatchObject({ name: "big_wave", description: "Hello there", tags: ["wave"] })
      const [row] = yield* queryAt(api.databaseUrl, "SELECT name, tags FROM guild_stickers WHERE id = $1", [stickerId])
      assert.deepStrictEqual(row, { name: "big_wave", tags: ["wave"] })

      const deleted = yield* api.request("DELETE", `/guilds/${guildId}/stickers/${stickerId}`, { token: owner.token })
      assert.strictEqual(deleted.status, 204)
      const gone = yield* api.request("DELETE", `/guilds/${guildId}/stickers/${stickerId}`, { token: owner.token })
      expectError(gone, 404, "UNKNOWN_STICKER")

      yield* api.request("POST", "/admin/guilds/reload", { token: `Admin ${api.adminKey}`, body: { guild_id: guildId } })
      const reloaded = yield* api.request("GET", `/guilds/${guildId}/stickers`, { token: owner.token })
      expect(reloaded.body).toMatchObject([{ name: "still", description: "", tags: [] }])

      expect(yield* auditEntries(guildId)).toMatchObject([
        { action_type: 90, target_id: stickerId, changes: [{ key: "name", new_value: "wave" }] },
        { action_type: 90 },
        {
          action_type: 91,
          target_id: stickerId,
          changes: [{ key: "name", old_value: "wave", new_value: "big_wave" }, { key: "tags", old_value: ["hi", "hello"], new_value: ["wave"] }]
        },
        { action_type: 92, target_id: stickerId, changes: [{ key: "name", old_value: "big_wave" }] }
      ])
    }))

  it.effect("refuses bad input with 400 and others' stickers with 403", () =>
    Effect.gen(function*() {
      const { api, owner, member, stranger, guildId } = yield* cast()
      const cases = [
        [{ name: "bad", image: "data:image/png;base64,%%%" }, "image", "INVALID_BASE64_FORMAT"],
        [{ name: "heavy", image: dataUri(png(16, 16, 600 * 1024)) }, "image", "IMAGE_SIZE_EXCEEDS_LIMIT"],
        [{ name: "bad name", image: dataUri(png(8, 8)) }, "name", "INVALID_FORMAT"],
        [{ name: "tags", tags: Array.from({ length: 11 }, (_, i) => `t${i}`), image: dataUri(png(8, 8)) }, "tags", undefined]
      ] as const
      for (const [body, path, code] of cases) {
        const reply = yield* api.request("POST", `/guilds/${guildId}/stickers`, { token: owner.token, body })
        assert.strictEqual(reply.status, 400, JSON.stringify(reply.body))
        expect(reply.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [code === undefined ? { path } : { path, code }] })
      }

      const outsider = yield* api.request("POST", `/guilds/${guildId}/stickers`, {
        token: stranger.token,
        body: { name: "nope", image: dataUri(png(8, 8)) }
      })
      expectError(outsider, 403, "MISSING_ACCESS")

      const owners = yield* api.request("POST", `/guilds/${guildId}/stickers`, { token: owner.token, body: { name: "owners", image: dataUri(png(8, 8)) } })
      const ownersId = field(owners.body, "id")
      for (const [method, body] of [["PATCH", { name: "taken" }], ["DELETE", undefined]] as const) {
        const reply = yield* api.request(method, `/guilds/${guildId}/stickers/${ownersId}`, { token: member.token, body })
        expectError(reply, 403, "MISSING_PERMISSIONS")
      }
      const listed = yield* api.request("GET", `/guilds/${guildId}/stickers`, { token: member.token })
      expect(listed.body).toMatchObject([{ id: ownersId, name: "owners" }])
      expect(yield* auditEntries(guildId)).toMatchObject([{ action_type: 90, target_id: ownersId }])
    }))

  it.effect("bulk-creates stickers up to the limit of 50, reporting the rest", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId } = yield* createGuild(owner.token)
      const stickers = Array.from({ length: 50 }, (_, i) => ({ name: `s_${i}`, image: dataUri(png(8, 8 + i)) }))
      const first = yield* api.request("POST", `/guilds/${guildId}/stickers/bulk`, { token: owner.token, body: { stickers } })
      assert.strictEqual(first.status, 200, JSON.stringify(first.body))
      expect(first.body).toMatchObject({ failed: [] })
      const more = yield* api.request("POST", `/guilds/${guildId}/stickers/bulk`, {
        token: owner.token,
        body: { stickers: [{ name: "extra", image: dataUri(png(8, 8)) }, { name: "junk", image: dataUri(Buffer.from("no image")) }] }
      })
      assert.deepStrictEqual(more.body, {
        success: [],
        failed: [{ name: "junk", error: "INVALID_IMAGE_DATA" }, { name: "extra", error: "MAX_STICKERS" }]
      })
      const tooMany = yield* api.request("POST", `/guilds/${guildId}/stickers/bulk`, {
        token: owner.token,
        body: { stickers: [...stickers, { name: "fifty_one", image: dataUri(png(8, 8)) }] }
      })
      assert.strictEqual(tooMany.status, 400)
      assert.strictEqual((yield* auditEntries(guildId)).length, 50)
    }))
})
