import { assert, expect } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { expectError, field, TestApi } from "../support/Api.ts"
import { cast, createGuild, setEveryone } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"
import { layerWithMedia } from "../media/MediaLayer.ts"
import { dataUri, gif, png } from "../media/Fixtures.ts"
import { auditEntries } from "./Support.ts"

layerWithMedia("emojis")("guild emojis over HTTP", (it) => {
  it.effect("creates an emoji, stores its image, lists it with its creator, serves the image", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId } = yield* createGuild(owner.token)
      const image = png(64, 64)
      const created = yield* api.request("POST", `/guilds/${guildId}/emojis`, {
        token: owner.token,
        body: { name: "party_time", image: dataUri(image) },
        headers: { "x-audit-log-reason": "for%20fun" }
      })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const emojiId = field(created.body, "id")
      assert.deepStrictEqual(created.body, { id: emojiId, name: "party_time", animated: false, nsfw: false })

      const listed = yield* api.request("GET", `/guilds/${guildId}/emojis`, { token: owner.token })
      assert.strictEqual(listed.status, 200)
      expect(listed.body).toMatchObject([{ id: emojiId, name: "party_time", animated: false, user: { id: owner.userId } }])

      const [row] = yield* queryAt(api.databaseUrl, "SELECT media_hash FROM guild_emojis WHERE id = $1", [emojiId])
      const hash = createHash("sha256").update(image).digest("hex")
      assert.strictEqual(row?.media_hash, hash)
      const served = yield* Effect.promise(() => fetch(`${api.baseUrl}/media/${hash}`))
      assert.strictEqual(served.status, 200)
      assert.strictEqual(served.headers.get("content-type"), "image/png")
      assert.strictEqual(served.headers.get("etag"), `"${hash}"`)
      expect(served.headers.get("cache-control")).toContain("immutable")
      assert.deepStrictEqual(Buffer.from(yield* Effect.promise(() => served.arrayBuffer())), image)
      const again = yield* Effect.promise(() => fetch(`${api.baseUrl}/media/${hash}`, { headers: { "if-none-match": `"${hash}"` } }))
      assert.strictEqual(again.status, 304)
      const missing = yield* api.request("GET", `/media/${"0".repeat(64)}`)
      expectError(missing, 404, "NOT_FOUND")

      expect(yield* auditEntries(guildId)).toMatchObject([
        { action_type: 60, target_id: emojiId, user_id: owner.userId, reason: "for fun", changes: [{ key: "name", new_value: "party_time" }] }
      ])

      // The state comes back from Postgres the same.
      yield* api.request("POST", "/admin/guilds/reload", { token: `Admin ${api.adminKey}`, body: { guild_id: guildId } })
      const reloaded = yield* api.request("GET", `/guilds/${guildId}/emojis`, { token: owner.token })
      assert.deepStrictEqual(reloaded.body, listed.body)
    }))

  it.effect("refuses bad images and bad names with 400", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId } = yield* createGuild(owner.token)
      const cases = [
        [{ name: "ok_name", image: "data:image/png;base64,bm90IGFuIGltYWdl" }, "image", "INVALID_IMAGE_DATA"],
        [{ name: "ok_name", image: `data:text/plain;base64,${png(4, 4).toString("base64")}` }, "image", "INVALID_IMAGE_FORMAT"],
        [{ name: "ok_name", image: dataUri(png(16, 16, 300 * 1024)) }, "image", "IMAGE_SIZE_EXCEEDS_LIMIT"],
        [{ name: "no spaces!", image: dataUri(png(4, 4)) }, "name", "INVALID_FORMAT"],
        [{ name: "x", image: dataUri(png(4, 4)) }, "name", "STRING_LENGTH_INVALID"]
      ] as const
      for (const [body, path, code] of cases) {
        const reply = yield* api.request("POST", `/guilds/${guildId}/emojis`, { token: owner.token, body })
        assert.strictEqual(reply.status, 400, JSON.stringify(reply.body))
        expect(reply.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path, code }] })
      }
      const listed = yield* api.request("GET", `/guilds/${guildId}/emojis`, { token: owner.token })
      assert.deepStrictEqual(listed.body, [])
    }))

  it.effect("lets a creator rename and delete their own emoji, and only managers touch others'", () =>
    Effect.gen(function*() {
      const { api, owner, member, stranger, guildId } = yield* cast()

      const outsider = yield* api.request("POST", `/guilds/${guildId}/emojis`, {
        token: stranger.token,
        body: { name: "nope", image: dataUri(png(8, 8)) }
      })
      expectError(outsider, 403, "MISSING_ACCESS")
      const strangerList = yield* api.request("GET", `/guilds/${guildId}/emojis`, { token: stranger.token })
      expect(strangerList.body).toMatchObject({ code: "MISSING_ACCESS" })

      // @everyone holds CREATE_EXPRESSIONS by default.
      const mine = yield* api.request("POST", `/guilds/${guildId}/emojis`, {
        token: member.token,
        body: { name: "mine", image: dataUri(png(8, 8)) }
      })
      assert.strictEqual(mine.status, 200, JSON.stringify(mine.body))
      const mineId = field(mine.body, "id")
      const theirs = yield* api.request("POST", `/guilds/${guildId}/emojis`, {
        token: owner.token,
        body: { name: "theirs", image: dataUri(png(9, 9)) }
      })
      const theirsId = field(theirs.body, "id")

      const renamed = yield* api.request("PATCH", `/guilds/${guildId}/emojis/${mineId}`, { token: member.token, body: { name: "still_mine" } })
      assert.strictEqual(renamed.status, 200)
      assert.deepStrictEqual(renamed.body, { id: mineId, name: "still_mine", animated: false, nsfw: false })
      const badName = yield* api.request("PATCH", `/guilds/${guildId}/emojis/${mineId}`, { token: member.token, body: { name: "a-b" } })
      assert.strictEqual(badName.status, 400)
      expect(badName.body).toMatchObject({ errors: [{ path: "name", code: "INVALID_FORMAT" }] })

      for (const [method, body] of [["PATCH", { name: "stolen" }], ["DELETE", undefined]] as const) {
        const reply = yield* api.request(method, `/guilds/${guildId}/emojis/${theirsId}`, { token: member.token, body })
        expectError(reply, 403, "MISSING_PERMISSIONS")
      }
      const unknown = yield* api.request("PATCH", `/guilds/${guildId}/emojis/123`, { token: owner.token, body: { name: "abc" } })
      expectError(unknown, 404, "UNKNOWN_EMOJI")

      const ownerRenames = yield* api.request("PATCH", `/guilds/${guildId}/emojis/${mineId}`, { token: owner.token, body: { name: "by_owner" } })
      assert.strictEqual(ownerRenames.status, 200)
      const deleted = yield* api.request("DELETE", `/guilds/${guildId}/emojis/${mineId}`, { token: member.token })
      assert.strictEqual(deleted.status, 204)
      const left = yield* api.request("GET", `/guilds/${guildId}/emojis`, { token: member.token })
      expect(left.body).toMatchObject([{ id: theirsId, user: { id: owner.userId } }])

      // Without CREATE_EXPRESSIONS a member can no longer create nor edit even their own.
      yield* setEveryone(guildId, 0n)
      const noCreate = yield* api.request("POST", `/guilds/${guildId}/emojis`, {
        token: member.token,
        body: { name: "again", image: dataUri(png(8, 8)) }
      })
      expectError(noCreate, 403, "MISSING_PERMISSIONS")

      expect(yield* auditEntries(guildId)).toMatchObject([
        { action_type: 60, target_id: mineId, user_id: member.userId },
        { action_type: 60, target_id: theirsId, user_id: owner.userId },
        { action_type: 61, target_id: mineId, changes: [{ key: "name", old_value: "mine", new_value: "still_mine" }] },
        { action_type: 61, target_id: mineId, user_id: owner.userId },
        { action_type: 62, target_id: mineId, user_id: member.userId, changes: [{ key: "name", old_value: "by_owner" }] }
      ])
    }))

  it.effect("bulk-creates with per-item failures and enforces the 50 per kind limit", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const stranger = yield* api.register()
      const { guildId } = yield* createGuild(owner.token)
      const emojis = Array.from({ length: 49 }, (_, i) => ({ name: `e_${i}`, image: dataUri(png(8, 8 + i)) }))
      const bulk = yield* api.request("POST", `/guilds/${guildId}/emojis/bulk`, {
        token: owner.token,
        body: { emojis: [...emojis, { name: "broken", image: "data:image/png;base64,AAAA" }] }
      })
      assert.strictEqual(bulk.status, 200, JSON.stringify(bulk.body))
      const { success, failed } = bulk.body as { success: ReadonlyArray<{ name: string }>; failed: ReadonlyArray<unknown> }
      assert.deepStrictEqual(success.map((e) => e.name), emojis.map((e) => e.name))
      assert.deepStrictEqual(failed, [{ name: "broken", error: "INVALID_IMAGE_DATA" }])

      const second = yield* api.request("POST", `/guilds/${guildId}/emojis/bulk`, {
        token: owner.token,
        body: {
          emojis: [
            { name: "fiftieth", image: dataUri(png(7, 7)) },
            { name: "one_too_many", image: dataUri(png(6, 6)) },
            { name: "moving", image: dataUri(gif(8, 8, 2), "image/gif") }
          ]
        }
      })
      expect(second.body).toMatchObject({
        success: [{ name: "fiftieth", animated: false }, { name: "moving", animated: true }],
        failed: [{ name: "one_too_many", error: "MAX_EMOJIS" }]
      })
      const single = yield* api.request("POST", `/guilds/${guildId}/emojis`, { token: owner.token, body: { name: "over", image: dataUri(png(5, 5)) } })
      expectError(single, 400, "MAX_EMOJIS")

      const empty = yield* api.request("POST", `/guilds/${guildId}/emojis/bulk`, { token: owner.token, body: { emojis: [] } })
      expectError(empty, 400, "INVALID_FORM_BODY")
      const forbidden = yield* api.request("POST", `/guilds/${guildId}/emojis/bulk`, {
        token: stranger.token,
        body: { emojis: [{ name: "sneaky", image: dataUri(png(8, 8)) }] }
      })
      assert.strictEqual(forbidden.status, 403)

      const entries = yield* auditEntries(guildId)
      assert.strictEqual(entries.length, 51)
      assert.ok(entries.every((e) => e.action_type === 60))
    }))
})
