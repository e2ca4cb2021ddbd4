import { assert, expect } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { dataUri, gif, png } from "../../media/Fixtures.ts"
import { layerWithMedia } from "../../media/MediaLayer.ts"
import { expectError, field, TestApi } from "../../support/Api.ts"
import { adminOk, adminToken, asAdmin, guildWith } from "./Fixtures.ts"

interface Asset { readonly id: string; readonly name: string; readonly animated: boolean; readonly creator_id: string; readonly media_url: string }

layerWithMedia("admin-guild-lookup")("admin guild lookups", (it) => {
  it.effect("lookup shows the whole guild; search finds it by name and id; list-members pages by offset", () =>
    Effect.gen(function*() {
      const name = `Lookup ${randomUUID().slice(0, 8)}`
      const { owner, members, guildId, channelId } = yield* guildWith(2, name)
      const lookup = yield* adminOk("/admin/guilds/lookup", { guild_id: guildId })
      expect(lookup).toMatchObject({
        guild: {
          id: guildId,
          owner_id: owner.userId,
          name,
          vanity_url_code: null,
          member_count: 3,
          channels: expect.arrayContaining([expect.objectContaining({ id: channelId, type: 0 })]),
          roles: [expect.objectContaining({ id: guildId, name: "@everyone" })]
        }
      })
      assert.deepStrictEqual(yield* adminOk("/admin/guilds/lookup", { guild_id: "1" }), { guild: null })

      const byName = yield* adminOk("/admin/guilds/search", { query: name.toLowerCase() })
      expect(byName).toEqual({
        guilds: [{ id: guildId, owner_id: owner.userId, name, icon: null, banner: null, features: expect.any(Array), member_count: 3 }],
        total: 1
      })
      expect(yield* adminOk("/admin/guilds/search", { query: guildId })).toMatchObject({ guilds: [{ id: guildId }], total: 1 })
      const everything = yield* adminOk("/admin/guilds/search", { limit: 1 })
      expect((everything as { guilds: Array<unknown> }).guilds).toHaveLength(1)
      assert.isAtLeast((everything as { total: number }).total, 1)

      const ids = [owner.userId, ...members.map((m) => m.userId)].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))
      const page = yield* adminOk("/admin/guilds/list-members", { guild_id: guildId, limit: 1, offset: 1 })
      expect(page).toMatchObject({ members: [{ user: { id: ids[1] } }], total: 3, limit: 1, offset: 1 })
      const all = yield* adminOk("/admin/guilds/list-members", { guild_id: guildId })
      expect(all).toMatchObject({ total: 3, limit: 50, offset: 0 })
      expect((all as { members: Array<unknown> }).members).toHaveLength(3)
      expectError(yield* asAdmin("/admin/guilds/list-members", { guild_id: "1" }), 404, "UNKNOWN_GUILD")
    }))

  it.effect("emojis and stickers: each with its creator and a media URL that serves the image", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId } = yield* guildWith(0)
      const emoji = yield* api.request("POST", `/guilds/${guildId}/emojis`, {
        token: owner.token,
        body: { name: "staff_pick", image: dataUri(png(64, 64)) }
      })
      assert.strictEqual(emoji.status, 200, JSON.stringify(emoji.body))
      const sticker = yield* api.request("POST", `/guilds/${guildId}/stickers`, {
        token: owner.token,
        body: { name: "wave", description: "Hello", tags: ["hi"], image: dataUri(gif(160, 160, 4), "image/gif") }
      })
      assert.strictEqual(sticker.status, 200, JSON.stringify(sticker.body))
      const token = yield* adminToken
      const emojis = yield* api.request("GET", `/admin/guilds/${guildId}/emojis`, { token })
      expect(emojis.body).toMatchObject({
        guild_id: guildId,
        emojis: [{ id: field(emoji.body, "id"), name: "staff_pick", animated: false, creator_id: owner.userId }]
      })
      const stickers = yield* api.request("GET", `/admin/guilds/${guildId}/stickers`, { token })
      expect(stickers.body).toMatchObject({
        guild_id: guildId,
        stickers: [{ id: field(sticker.body, "id"), name: "wave", animated: true, creator_id: owner.userId }]
      })
      const [item] = (emojis.body as { emojis: ReadonlyArray<Asset> }).emojis
      if (item === undefined) throw new Error("no emoji")
      const image = yield* api.request("GET", new URL(item.media_url).pathname)
      assert.strictEqual(image.status, 200)
      expectError(yield* api.request("GET", "/admin/guilds/1/emojis", { token }), 404, "UNKNOWN_GUILD")
    }))
})
