import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, field, type Reply, TestApi } from "../support/Api.ts"
import { CHAT, fieldCode, guildWithChannel, guildWithSecretChannel, memberWith, send, sent, withEmbeds } from "./Fixtures.ts"

const ids = (reply: Reply) => {
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return (reply.body as { messages: ReadonlyArray<{ id: string }> }).messages.map((m) => m.id)
}

layer(TestApi.layer, { timeout: 180_000, excludeTestServices: true })("message search by link hostname and embed type", (it) => {
  it.effect("link_hostname and exclude_link_hostname: links in the text and in embeds, any case", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId, member, secret } = yield* guildWithSecretChannel(CHAT)

      const page = yield* sent(owner.token, channelId, "see HTTPS://Example.COM/page")
      const both = yield* sent(member.token, channelId, "mirror at http://user@docs.example.org:8080/x and https://example.com.")
      const bare = yield* sent(owner.token, channelId, "example.com without a scheme is not a link")
      const cardReply = yield* send(owner.token, channelId, { content: "a card", embeds: [{ title: "Video", url: "https://media.example.net/v" }] })
      assert.strictEqual(cardReply.status, 200, JSON.stringify(cardReply.body))
      const card = field(cardReply.body, "id")
      const hidden = yield* sent(owner.token, secret, "https://example.com/secret")

      const search = (token: string, body: Record<string, unknown>) => api.request("POST", "/search/messages", { token, body })
      const mine = (body: Record<string, unknown>) => search(member.token, body)

      assert.deepStrictEqual(ids(yield* mine({ link_hostname: ["example.com"] })), [both, page])
      assert.deepStrictEqual(ids(yield* mine({ link_hostname: ["EXAMPLE.com"] })), [both, page])
      assert.deepStrictEqual(ids(yield* mine({ link_hostname: ["docs.example.org", "media.example.net"] })), [card, both])
      assert.deepStrictEqual(ids(yield* mine({ link_hostname: ["example.org"] })), [])
      assert.deepStrictEqual(ids(yield* mine({ link_hostname: ["example.com"], content: "mirror" })), [both])
      assert.deepStrictEqual(ids(yield* mine({ exclude_link_hostname: ["example.com"] })), [card, bare])
      assert.deepStrictEqual(ids(yield* mine({ has: ["link"], exclude_link_hostname: ["docs.example.org"] })), [page])
      // The owner reads the secret channel too; the member does not.
      assert.deepStrictEqual(ids(yield* search(owner.token, { link_hostname: ["example.com"] })), [hidden, both, page])
    }))

  it.effect("embed_type and exclude_embed_type: the embed's own type; rich embeds are none of them", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const member = yield* memberWith(guildId, CHAT)
      const image = yield* withEmbeds(owner.token, channelId, "a picture", [{ type: "image", url: "https://cdn.example.net/p.png" }])
      const article = yield* withEmbeds(owner.token, channelId, "a story", [
        { type: "rich", title: "x" },
        { type: "article", url: "https://news.example.org/a" }
      ])
      const video = yield* withEmbeds(owner.token, channelId, "a clip", [{ type: "video" }])
      const richReply = yield* send(owner.token, channelId, { content: "rich", embeds: [{ title: "Rich", description: "only" }] })
      assert.strictEqual(richReply.status, 200, JSON.stringify(richReply.body))
      const rich = field(richReply.body, "id")
      const plain = yield* sent(owner.token, channelId, "no embed at all")

      const mine = (body: Record<string, unknown>) => api.request("POST", "/search/messages", { token: member.token, body })
      assert.deepStrictEqual(ids(yield* mine({ embed_type: ["image"] })), [image])
      assert.deepStrictEqual(ids(yield* mine({ embed_type: ["image", "article"] })), [article, image])
      assert.deepStrictEqual(ids(yield* mine({ embed_type: ["sound"] })), [])
      assert.deepStrictEqual(ids(yield* mine({ embed_type: ["article", "video"], exclude_embed_type: ["video"] })), [article])
      assert.deepStrictEqual(ids(yield* mine({ exclude_embed_type: ["image", "article", "video"] })), [plain, rich])
      assert.deepStrictEqual(ids(yield* mine({ has: ["embed"], exclude_embed_type: ["video"] })), [rich, article, image])
      // An embed's url is a link of its message.
      assert.deepStrictEqual(ids(yield* mine({ link_hostname: ["cdn.example.net", "news.example.org"] })), [article, image])
      assert.deepStrictEqual(ids(yield* mine({ embed_type: ["video"], content: "clip" })), [video])
    }))

  it.effect("bad input is refused with the error object", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner } = yield* guildWithChannel
      const search = (body: unknown) => api.request("POST", "/search/messages", { token: owner.token, body })
      for (
        const body of [
          { embed_type: ["gif"] },
          { embed_type: "image" },
          { exclude_embed_type: [1] },
          { embed_type: Array.from({ length: 21 }, () => "image") },
          { link_hostname: "example.com" },
          { link_hostname: [""] },
          { link_hostname: ["x".repeat(256)] },
          { exclude_link_hostname: Array.from({ length: 101 }, (_, i) => `h${i}.example`) }
        ]
      ) {
        const reply = yield* search(body)
        expectError(reply, 400, "INVALID_FORM_BODY")
      }
      const empty = yield* search({ link_hostname: [""] })
      assert.strictEqual(fieldCode(empty), "STRING_LENGTH_INVALID")
    }))

  it.effect("forbidden: no token; a user outside the guild finds nothing by hostname", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      yield* sent(owner.token, channelId, "https://private.example.com/plans")
      expectError(yield* api.request("POST", "/search/messages", { body: { link_hostname: ["private.example.com"] } }), 401, "UNAUTHORIZED")
      const stranger = yield* api.register()
      const found = yield* api.request("POST", "/search/messages", {
        token: stranger.token,
        body: { link_hostname: ["private.example.com"], context_guild_id: guildId }
      })
      assert.deepStrictEqual(ids(found), [])
    }))
})
