import { assert, expect } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"
import { layerWithMedia } from "../media/MediaLayer.ts"
import { dataUri, gif, png } from "../media/Fixtures.ts"

const createPack = (token: string, type: string, name = "My pack") =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("POST", `/packs/${type}`, { token, body: { name, description: "things" } })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return { id: field(reply.body, "id"), body: reply.body }
  })

layerWithMedia("packs")("packs over HTTP", (it) => {
  it.effect("creates packs, installs them for their creator and lists them on the dashboard", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* api.register()
      const emoji = yield* createPack(user.token, "emoji")
      expect(emoji.body).toMatchObject({ name: "My pack", description: "things", type: "emoji", creator_id: user.userId })
      field(emoji.body, "installed_at")
      const sticker = yield* createPack(user.token, "sticker", "Stickers")
      const dashboard = yield* api.request("GET", "/packs", { token: user.token })
      assert.strictEqual(dashboard.status, 200)
      expect(dashboard.body).toMatchObject({
        emoji: { created: [{ id: emoji.id }], installed: [{ id: emoji.id }], created_limit: 10, installed_limit: 100 },
        sticker: { created: [{ id: sticker.id }], installed: [{ id: sticker.id }] }
      })

      const badType = yield* api.request("POST", "/packs/gifs", { token: user.token, body: { name: "x" } })
      expectError(badType, 400, "INVALID_PACK_TYPE")
      const badName = yield* api.request("POST", "/packs/emoji", { token: user.token, body: { name: "" } })
      assert.strictEqual(badName.status, 400)
      expect(badName.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "name", code: "STRING_LENGTH_INVALID" }] })

      const reinstall = yield* api.request("POST", `/packs/${emoji.id}/install`, { token: user.token })
      assert.strictEqual(reinstall.status, 204)
      const other = yield* api.register()
      const foreign = yield* api.request("POST", `/packs/${emoji.id}/install`, { token: other.token })
      assert.strictEqual(foreign.status, 403)
      const missing = yield* api.request("POST", "/packs/123/install", { token: user.token })
      expectError(missing, 404, "UNKNOWN_PACK")
    }))

  it.effect("manages a pack's emojis: create, bulk, list, rename, delete; only its creator", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* api.register()
      const other = yield* api.register()
      const pack = yield* createPack(user.token, "emoji")
      const created = yield* api.request("POST", `/packs/emojis/${pack.id}`, { token: user.token, body: { name: "blob", image: dataUri(png(32, 32)) } })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const emojiId = field(created.body, "id")
      assert.deepStrictEqual(created.body, { id: emojiId, name: "blob", animated: false, nsfw: false })
      const [row] = yield* queryAt(api.databaseUrl, "SELECT media_hash FROM pack_items WHERE id = $1", [emojiId])
      const served = yield* api.request("GET", `/media/${String(row?.media_hash)}`)
      assert.strictEqual(served.status, 200)

      const bulk = yield* api.request("POST", `/packs/emojis/${pack.id}/bulk`, {
        token: user.token,
        body: { emojis: [{ name: "spin", image: dataUri(gif(16, 16, 2), "image/gif") }, { name: "bad", image: "data:image/gif;base64,R0lG" }] }
      })
      expect(bulk.body).toMatchObject({ success: [{ name: "spin", animated: true }], failed: [{ name: "bad", error: "INVALID_IMAGE_DATA" }] })

      const listed = yield* api.request("GET", `/packs/emojis/${pack.id}`, { token: user.token })
      expect(listed.body).toMatchObject([{ id: emojiId, name: "blob", user: { id: user.userId } }, { name: "spin" }])
      const renamed = yield* api.request("PATCH", `/packs/emojis/${pack.id}/${emojiId}`, { token: user.token, body: { name: "blobby" } })
      expect(renamed.body).toMatchObject({ id: emojiId, name: "blobby" })

      const badImage = yield* api.request("POST", `/packs/emojis/${pack.id}`, {
        token: user.token,
        body: { name: "oops", image: `data:image/tiff;base64,${png(4, 4).toString("base64")}` }
      })
      assert.strictEqual(badImage.status, 400)
      expect(badImage.body).toMatchObject({ errors: [{ path: "image", code: "INVALID_IMAGE_FORMAT" }] })

      const peek = yield* api.request("GET", `/packs/emojis/${pack.id}`, { token: other.token })
      expectError(peek, 403, "PACK_ACCESS_DENIED")
      const add = yield* api.request("POST", `/packs/emojis/${pack.id}`, { token: other.token, body: { name: "mine", image: dataUri(png(4, 4)) } })
      assert.strictEqual(add.status, 403)
      const wrongKind = yield* api.request("GET", `/packs/stickers/${pack.id}`, { token: user.token })
      expectError(wrongKind, 404, "UNKNOWN_PACK")

      const deleted = yield* api.request("DELETE", `/packs/emojis/${pack.id}/${emojiId}`, { token: user.token })
      assert.strictEqual(deleted.status, 204)
      const again = yield* api.request("PATCH", `/packs/emojis/${pack.id}/${emojiId}`, { token: user.token, body: { name: "gone" } })
      expectError(again, 404, "UNKNOWN_EMOJI")
    }))

  it.effect("manages a pack's stickers and caps a pack at 50 expressions", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* api.register()
      const pack = yield* createPack(user.token, "sticker")
      const created = yield* api.request("POST", `/packs/stickers/${pack.id}`, {
        token: user.token,
        body: { name: "hello", description: "hi", tags: ["wave"], image: dataUri(png(160, 160)) }
      })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const stickerId = field(created.body, "id")
      const updated = yield* api.request("PATCH", `/packs/stickers/${pack.id}/${stickerId}`, {
        token: user.token,
        body: { name: "hello_there", description: null }
      })
      expect(updated.body).toMatchObject({ name: "hello_there", description: "", tags: ["wave"] })
      const listed = yield* api.request("GET", `/packs/stickers/${pack.id}`, { token: user.token })
      expect(listed.body).toMatchObject([{ id: stickerId, name: "hello_there", tags: ["wave"], user: { id: user.userId } }])

      const stickers = Array.from({ length: 50 }, (_, i) => ({ name: `s_${i}`, image: dataUri(png(8, 8 + i)) }))
      const bulk = yield* api.request("POST", `/packs/stickers/${pack.id}/bulk`, { token: user.token, body: { stickers } })
      const reply = bulk.body as { success: ReadonlyArray<unknown>; failed: ReadonlyArray<unknown> }
      assert.strictEqual(reply.success.length, 49)
      assert.deepStrictEqual(reply.failed, [{ name: "s_49", error: "MAX_PACK_EXPRESSIONS" }])
      const over = yield* api.request("POST", `/packs/stickers/${pack.id}`, { token: user.token, body: { name: "over", image: dataUri(png(4, 4)) } })
      expectError(over, 400, "MAX_PACK_EXPRESSIONS")
      const removed = yield* api.request("DELETE", `/packs/stickers/${pack.id}/${stickerId}`, { token: user.token })
      assert.strictEqual(removed.status, 204)
    }))

  it.effect("creates and lists pack invites, for the pack's creator only", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* api.register()
      const other = yield* api.register()
      const pack = yield* createPack(user.token, "sticker")
      const invite = yield* api.request("POST", `/packs/${pack.id}/invites`, { token: user.token, body: { max_uses: 5, max_age: 3600 } })
      assert.strictEqual(invite.status, 200, JSON.stringify(invite.body))
      expect(invite.body).toMatchObject({
        type: 3,
        pack: { id: pack.id, type: "sticker", creator: { id: user.userId } },
        inviter: { id: user.userId },
        uses: 0,
        max_uses: 5,
        temporary: false
      })
      const code = field(invite.body, "code")
      const listed = yield* api.request("GET", `/packs/${pack.id}/invites`, { token: user.token })
      expect(listed.body).toMatchObject([{ code }])
      const tooMany = yield* api.request("POST", `/packs/${pack.id}/invites`, { token: user.token, body: { max_uses: 101 } })
      assert.strictEqual(tooMany.status, 400)
      const foreign = yield* api.request("GET", `/packs/${pack.id}/invites`, { token: other.token })
      assert.strictEqual(foreign.status, 403)
    }))
})
