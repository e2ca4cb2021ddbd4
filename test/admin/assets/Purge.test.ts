import { assert, expect } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { expectError, field, TestApi } from "../../support/Api.ts"
import { setAcls } from "../../support/Acls.ts"
import { addMember, createGuild } from "../../support/Cast.ts"
import { identified, nextMatching } from "../../gateway/Client.ts"
import { layerWithMedia } from "../../media/MediaLayer.ts"
import { dataUri, png } from "../../media/Fixtures.ts"
import { auditEntries } from "../../expressions/Support.ts"

const PURGE = "/admin/assets/purge"
const hashOf = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex")

const purge = (body: unknown, headers?: Record<string, string>) =>
  Effect.flatMap(TestApi, (api) => api.request("POST", PURGE, { token: `Admin ${api.adminKey}`, body, headers }))

const served = (hash: string) =>
  Effect.flatMap(TestApi, (api) => Effect.promise(() => fetch(`${api.baseUrl}/media/${hash}`).then((r) => r.status)))

const createEmoji = (token: string, guildId: string, image: Buffer, name = "kite") =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const created = yield* api.request("POST", `/guilds/${guildId}/emojis`, { token, body: { name, image: dataUri(image) } })
    assert.strictEqual(created.status, 200, JSON.stringify(created.body))
    return field(created.body, "id")
  })

layerWithMedia("admin-assets")("POST /admin/assets/purge", (it) => {
  it.effect("served to an operator, 400 on bad ids, 403 without its ACL, 401 anonymous", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const ok = yield* purge({ ids: [] })
      assert.strictEqual(ok.status, 200, JSON.stringify(ok.body))
      assert.deepStrictEqual(ok.body, { processed: [], errors: [] })
      for (const bad of [{}, { ids: ["not-a-snowflake"] }, { ids: "1" }, { ids: Array.from({ length: 101 }, (_, i) => String(i + 1)) }]) {
        expectError(yield* purge(bad), 400, "INVALID_FORM_BODY")
      }
      const other = yield* api.register()
      yield* setAcls(other.userId, ["admin:authenticate", "discovery:review"])
      expectError(yield* api.request("POST", PURGE, { token: other.token, body: { ids: [] } }), 403, "MISSING_PERMISSIONS")
      assert.strictEqual((yield* api.request("POST", PURGE, { body: { ids: [] } })).status, 401)
      yield* setAcls(other.userId, ["admin:authenticate", "asset:purge"])
      assert.strictEqual((yield* api.request("POST", PURGE, { token: other.token, body: { ids: [] } })).status, 200)
    }))

  it.effect("purges an emoji and a sticker: gone from the guild, their files gone, members told; an unknown id is not found", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const member = yield* api.register()
      const { guildId } = yield* createGuild(owner.token)
      yield* addMember(guildId, member.userId)
      const emojiImage = png(40, 40)
      const stickerImage = png(320, 320)
      const emojiId = yield* createEmoji(owner.token, guildId, emojiImage)
      const keptId = yield* createEmoji(owner.token, guildId, png(44, 44), "kept")
      const sticker = yield* api.request("POST", `/guilds/${guildId}/stickers`, {
        token: owner.token,
        body: { name: "kite", image: dataUri(stickerImage) }
      })
      assert.strictEqual(sticker.status, 200, JSON.stringify(sticker.body))
      const stickerId = field(sticker.body, "id")
      assert.strictEqual(yield* served(hashOf(emojiImage)), 200)
      const { client } = yield* identified(member.token)

      const unknownId = "1234567890123"
      const purged = yield* purge({ ids: [emojiId, stickerId, unknownId, emojiId] }, { "x-audit-log-reason": "takedown%20request" })
      assert.strictEqual(purged.status, 200, JSON.stringify(purged.body))
      assert.deepStrictEqual(purged.body, {
        processed: [
          { id: emojiId, asset_type: "emoji", found_in_db: true, guild_id: guildId },
          { id: stickerId, asset_type: "sticker", found_in_db: true, guild_id: guildId },
          { id: unknownId, asset_type: "unknown", found_in_db: false, guild_id: null }
        ],
        errors: []
      })

      const emojis = yield* api.request("GET", `/guilds/${guildId}/emojis`, { token: owner.token })
      assert.deepStrictEqual((emojis.body as Array<{ id: string }>).map((e) => e.id), [keptId])
      assert.deepStrictEqual((yield* api.request("GET", `/guilds/${guildId}/stickers`, { token: owner.token })).body, [])
      assert.strictEqual(yield* served(hashOf(emojiImage)), 404)
      assert.strictEqual(yield* served(hashOf(stickerImage)), 404)
      assert.strictEqual(yield* served(hashOf(png(44, 44))), 200)

      const emojisUpdate = yield* nextMatching(client, "GUILD_EMOJIS_UPDATE", (d) =>
        typeof d === "object" && d !== null && "emojis" in d && Array.isArray(d.emojis) && d.emojis.length === 1)
      expect(emojisUpdate.d).toMatchObject({ guild_id: guildId, emojis: [{ id: keptId, name: "kept" }] })
      const stickersUpdate = yield* nextMatching(client, "GUILD_STICKERS_UPDATE", (d) =>
        typeof d === "object" && d !== null && "stickers" in d && Array.isArray(d.stickers) && d.stickers.length === 0)
      expect(stickersUpdate.d).toMatchObject({ guild_id: guildId })

      // The guild's audit log has the deletions; the admin audit log the purges.
      const entries = yield* auditEntries(guildId)
      expect(entries.filter((e) => e.action_type === 62 || e.action_type === 92)).toMatchObject([
        { action_type: 62, target_id: emojiId, reason: "takedown request", changes: [{ key: "name", old_value: "kite" }] },
        { action_type: 92, target_id: stickerId, reason: "takedown request", changes: [{ key: "name", old_value: "kite" }] }
      ])
      const audited = yield* api.request("POST", "/admin/audit-logs/search", { token: `Admin ${api.adminKey}`, body: { target_id: emojiId } })
      expect(audited.body).toMatchObject({
        logs: [{ action: "purge_guild_emoji_asset", target_type: "guild_emoji", audit_log_reason: "takedown request", metadata: { asset_type: "emoji", guild_id: guildId } }]
      })
      const unknown = yield* api.request("POST", "/admin/audit-logs/search", { token: `Admin ${api.adminKey}`, body: { target_id: unknownId } })
      expect(unknown.body).toMatchObject({ logs: [{ action: "purge_asset", target_type: "asset", metadata: { asset_type: "unknown" } }] })

      // Purged twice: nothing is left to find.
      expect((yield* purge({ ids: [emojiId] })).body).toMatchObject({ processed: [{ id: emojiId, asset_type: "unknown", found_in_db: false }] })
    }))

  it.effect("keeps a file another expression still shows", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const first = yield* createGuild(owner.token)
      const second = yield* createGuild(owner.token)
      const image = png(52, 52)
      const purgedId = yield* createEmoji(owner.token, first.guildId, image)
      const sharedId = yield* createEmoji(owner.token, second.guildId, image)
      expect((yield* purge({ ids: [purgedId] })).body).toMatchObject({ processed: [{ id: purgedId, found_in_db: true }] })
      assert.strictEqual(yield* served(hashOf(image)), 200)
      const left = yield* api.request("GET", `/guilds/${second.guildId}/emojis`, { token: owner.token })
      assert.deepStrictEqual((left.body as Array<{ id: string }>).map((e) => e.id), [sharedId])
      // Once the last one goes, so does the file.
      yield* purge({ ids: [sharedId] })
      assert.strictEqual(yield* served(hashOf(image)), 404)
    }))
})
