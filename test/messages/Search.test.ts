import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { expectError, field, type Reply, TestApi } from "../support/Api.ts"
import { CHAT, guildWithChannel, guildWithSecretChannel, memberWith, sent } from "./Fixtures.ts"
import { payload, postMultipart } from "./Multipart.ts"

const CHAT_WITH_FILES = CHAT | Permission.ATTACH_FILES

interface Results {
  readonly messages: ReadonlyArray<{ readonly id: string }>
  readonly channels: ReadonlyArray<{ readonly id: string }>
  readonly total: number
  readonly page: number
  readonly hits_per_page: number
}
const results = (reply: Reply): Results => {
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body as Results
}
const ids = (reply: Reply) => results(reply).messages.map((m) => m.id)

layer(TestApi.layer, { timeout: 180_000, excludeTestServices: true })("message search over HTTP", (it) => {
  it.effect("full-text search over what the caller may read, with filters and pages", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId, member, secret } = yield* guildWithSecretChannel(CHAT_WITH_FILES)
      const fox = yield* sent(owner.token, channelId, "The QUICK brown fox jumps")
      const link = yield* sent(member.token, channelId, "a lazy dog at https://example.com/dog")
      const hidden = yield* sent(owner.token, secret, "quick secret plans")
      const upload = yield* postMultipart(member.token, channelId, [
        payload({ content: "quick look at this file", attachments: [{ id: 0 }] }),
        { name: "files[0]", filename: "doc.txt", data: Buffer.from("contents"), type: "text/plain" }
      ])
      const file = field(upload.body, "id")
      const elsewhere = yield* guildWithChannel
      yield* sent(elsewhere.owner.token, elsewhere.channelId, "quick but in another guild")

      const search = (token: string, body: Record<string, unknown>) => api.request("POST", "/search/messages", { token, body })
      const mine = (body: Record<string, unknown>) => search(member.token, body)

      const quick = results(yield* mine({ content: "quick" }))
      assert.deepStrictEqual(quick.messages.map((m) => m.id), [file, fox])
      expect(quick).toMatchObject({ total: 2, page: 1, hits_per_page: 25, channels: [{ id: channelId }] })
      // The owner reads the secret channel too.
      assert.deepStrictEqual(ids(yield* search(owner.token, { content: "quick" })), [file, hidden, fox])
      assert.deepStrictEqual(ids(yield* search(owner.token, { content: "quick", channel_id: [secret] })), [hidden])
      assert.deepStrictEqual(ids(yield* search(owner.token, { content: "quick", exclude_channel_id: [secret] })), [file, fox])

      assert.deepStrictEqual(ids(yield* mine({ content: "quick", author_id: [owner.userId] })), [fox])
      assert.deepStrictEqual(ids(yield* mine({ content: "quick", exclude_author_id: [owner.userId] })), [file])
      assert.deepStrictEqual(ids(yield* mine({ has: ["link"] })), [link])
      assert.deepStrictEqual(ids(yield* mine({ has: ["file"] })), [file])
      assert.deepStrictEqual(ids(yield* mine({ content: "quick", exclude_has: ["file"] })), [fox])
      assert.deepStrictEqual(ids(yield* mine({ exact_phrases: ["brown fox"] })), [fox])
      assert.deepStrictEqual(ids(yield* mine({ exact_phrases: ["fox brown"] })), [])
      assert.deepStrictEqual(ids(yield* mine({ content: "quick -file" })), [fox])
      assert.deepStrictEqual(ids(yield* mine({ max_id: link })), [fox])
      assert.deepStrictEqual(ids(yield* mine({ min_id: link })), [file])
      assert.deepStrictEqual(ids(yield* mine({ sort_order: "asc" })), [fox, link, file])
      assert.deepStrictEqual(ids(yield* mine({ context_guild_id: guildId, content: "quick" })), [file, fox])
      assert.deepStrictEqual(ids(yield* mine({ context_guild_id: elsewhere.guildId, content: "quick" })), [])

      const page2 = results(yield* mine({ hits_per_page: 1, page: 2 }))
      expect(page2).toMatchObject({ total: 3, page: 2, hits_per_page: 1 })
      assert.deepStrictEqual(page2.messages.map((m) => m.id), [link])
      assert.deepStrictEqual(ids(yield* mine({ content: "nothing matches this" })), [])
    }))

  it.effect("bad input is refused with the error object", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner } = yield* guildWithChannel
      const search = (body: unknown) => api.request("POST", "/search/messages", { token: owner.token, body })
      for (
        const body of [
          { hits_per_page: 26 },
          { hits_per_page: 0 },
          { page: 0 },
          { has: ["nonsense"] },
          { content: "" },
          { channel_id: ["abc"] },
          { author_id: "1" },
          { sort_order: "sideways" },
          { min_id: 5 }
        ]
      ) {
        expectError(yield* search(body), 400, "INVALID_FORM_BODY")
      }
    }))

  it.effect("forbidden: no token, and channels without READ_MESSAGE_HISTORY are not searched", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      yield* sent(owner.token, channelId, "history matters")
      expectError(yield* api.request("POST", "/search/messages", { body: { content: "history" } }), 401, "UNAUTHORIZED")
      const viewer = yield* memberWith(guildId, Permission.VIEW_CHANNEL)
      const seen = results(yield* api.request("POST", "/search/messages", { token: viewer.token, body: { content: "history" } }))
      expect(seen).toMatchObject({ messages: [], channels: [], total: 0 })
      const stranger = yield* api.register()
      const none = results(yield* api.request("POST", "/search/messages", { token: stranger.token, body: { content: "history", context_guild_id: guildId } }))
      assert.strictEqual(none.total, 0)
    }))
})
