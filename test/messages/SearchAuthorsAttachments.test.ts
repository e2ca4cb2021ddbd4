import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { expectError, field, type Reply, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"
import { CHAT, fieldCode, guildWithChannel, guildWithSecretChannel, memberWith, sent, withEmbeds } from "./Fixtures.ts"
import { payload, postMultipart } from "./Multipart.ts"

const CHAT_WITH_FILES = CHAT | Permission.ATTACH_FILES

interface Found {
  readonly messages: ReadonlyArray<{
    readonly id: string
    readonly author: { readonly id: string; readonly bot?: boolean }
    readonly embeds: ReadonlyArray<unknown>
  }>
}
const found = (reply: Reply): Found => {
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body as Found
}
const ids = (reply: Reply) => found(reply).messages.map((m) => m.id)

/** Sends `content` with one small text file per name in `filenames`; the new message's id. */
const withFiles = (token: string, channelId: string, content: string, filenames: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const reply = yield* postMultipart(token, channelId, [
      payload({ content, attachments: filenames.map((_, id) => ({ id })) }),
      ...filenames.map((filename, i) => ({ name: `files[${i}]`, filename, data: Buffer.from(`file ${i}`), type: "text/plain" }))
    ])
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return field(reply.body, "id")
  })

layer(TestApi.layer, { timeout: 180_000, excludeTestServices: true })("message search by author type, embed provider and attachment", (it) => {
  it.effect("author_type and exclude_author_type: bots by their user's flag, people otherwise, no webhooks", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId, member, secret } = yield* guildWithSecretChannel(CHAT_WITH_FILES)
      const bot = yield* memberWith(guildId, CHAT_WITH_FILES)
      yield* queryAt(api.databaseUrl, "UPDATE users SET bot = true WHERE id = $1", [bot.userId])

      const person = yield* sent(owner.token, channelId, "hello from a person")
      const beep = yield* sent(bot.token, channelId, "beep from a bot")
      const other = yield* sent(member.token, channelId, "another person")
      yield* sent(bot.token, secret, "a bot in the secret channel")

      const mine = (body: Record<string, unknown>) => api.request("POST", "/search/messages", { token: member.token, body })
      const bots = found(yield* mine({ author_type: ["bot"] }))
      assert.deepStrictEqual(bots.messages.map((m) => m.id), [beep])
      expect(bots.messages[0]?.author).toMatchObject({ id: bot.userId, bot: true })
      assert.deepStrictEqual(ids(yield* mine({ author_type: ["user"] })), [other, person])
      assert.deepStrictEqual(ids(yield* mine({ author_type: ["webhook"] })), [])
      assert.deepStrictEqual(ids(yield* mine({ author_type: ["user", "bot"] })), [other, beep, person])
      assert.deepStrictEqual(ids(yield* mine({ exclude_author_type: ["bot"] })), [other, person])
      assert.deepStrictEqual(ids(yield* mine({ exclude_author_type: ["user"] })), [beep])
      assert.deepStrictEqual(ids(yield* mine({ exclude_author_type: ["webhook"] })), [other, beep, person])
      assert.deepStrictEqual(ids(yield* mine({ author_type: ["user"], content: "person", exclude_author_id: [owner.userId] })), [other])
    }))

  it.effect("embed_provider and exclude_embed_provider: the provider's name, in any case", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const member = yield* memberWith(guildId, CHAT_WITH_FILES)
      const video = yield* withEmbeds(owner.token, channelId, "a video", [
        { type: "video", url: "https://www.youtube.com/watch?v=x", provider: { name: "YouTube", url: "https://www.youtube.com" } }
      ])
      const both = yield* withEmbeds(owner.token, channelId, "two previews", [
        { type: "article", provider: { name: "Ärzteblatt" } },
        { type: "link", provider: { name: "GitHub" } }
      ])
      const noProvider = yield* withEmbeds(owner.token, channelId, "rich only", [{ type: "rich", title: "x", provider: null }])
      const plain = yield* sent(owner.token, channelId, "no embed at all")

      const mine = (body: Record<string, unknown>) => api.request("POST", "/search/messages", { token: member.token, body })
      const youtube = found(yield* mine({ embed_provider: ["youtube"] }))
      assert.deepStrictEqual(youtube.messages.map((m) => m.id), [video])
      expect(youtube.messages[0]?.embeds).toMatchObject([{ provider: { name: "YouTube" } }])
      assert.deepStrictEqual(ids(yield* mine({ embed_provider: ["YOUTUBE", "github"] })), [both, video])
      assert.deepStrictEqual(ids(yield* mine({ embed_provider: ["ÄRZTEBLATT"] })), [both])
      assert.deepStrictEqual(ids(yield* mine({ embed_provider: ["you"] })), [])
      assert.deepStrictEqual(ids(yield* mine({ exclude_embed_provider: ["YouTube"] })), [plain, noProvider, both])
      assert.deepStrictEqual(ids(yield* mine({ has: ["embed"], exclude_embed_provider: ["github", "youtube"] })), [noProvider])
      assert.deepStrictEqual(ids(yield* mine({ embed_provider: ["github"], embed_type: ["article"] })), [both])
    }))

  it.effect("attachment_filename and attachment_extension, and their exclusions: whole names, in any case", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const member = yield* memberWith(guildId, CHAT_WITH_FILES)
      const report = yield* withFiles(owner.token, channelId, "the report", ["Report.Final.PDF"])
      const holiday = yield* withFiles(owner.token, channelId, "holiday", ["beach.png", "notes.txt"])
      const readme = yield* withFiles(member.token, channelId, "", ["README"])
      const spaced = yield* withFiles(member.token, channelId, "spaced", ["my plans.txt"])
      const plain = yield* sent(owner.token, channelId, "no files here")

      const mine = (body: Record<string, unknown>) => api.request("POST", "/search/messages", { token: member.token, body })
      assert.deepStrictEqual(ids(yield* mine({ attachment_filename: ["report.final.pdf"] })), [report])
      assert.deepStrictEqual(ids(yield* mine({ attachment_filename: ["REPORT.FINAL"] })), [report])
      // Whole names only: neither a part of a name nor one of its words.
      assert.deepStrictEqual(ids(yield* mine({ attachment_filename: ["report"] })), [])
      assert.deepStrictEqual(ids(yield* mine({ attachment_filename: ["beac"] })), [])
      assert.deepStrictEqual(ids(yield* mine({ attachment_filename: ["notes.txt", "readme"] })), [readme, holiday])
      // Named as uploaded: the stored name has an underscore for the space.
      assert.deepStrictEqual(ids(yield* mine({ attachment_filename: ["my plans.txt"] })), [spaced])
      assert.deepStrictEqual(ids(yield* mine({ exclude_attachment_filename: ["beach"] })), [plain, spaced, readme, report])
      assert.deepStrictEqual(ids(yield* mine({ has: ["file"], exclude_attachment_filename: ["readme", "my_plans"] })), [holiday, report])

      assert.deepStrictEqual(ids(yield* mine({ attachment_extension: ["pdf"] })), [report])
      assert.deepStrictEqual(ids(yield* mine({ attachment_extension: [".PNG"] })), [holiday])
      assert.deepStrictEqual(ids(yield* mine({ attachment_extension: ["txt", "pdf"] })), [spaced, holiday, report])
      // The extension is what follows the last dot only.
      assert.deepStrictEqual(ids(yield* mine({ attachment_extension: ["final"] })), [])
      assert.deepStrictEqual(ids(yield* mine({ attachment_extension: ["readme"] })), [])
      assert.deepStrictEqual(ids(yield* mine({ exclude_attachment_extension: ["txt"] })), [plain, readme, report])
      assert.deepStrictEqual(ids(yield* mine({ has: ["file"], exclude_attachment_extension: [".txt", "pdf"] })), [readme])
      assert.deepStrictEqual(ids(yield* mine({ attachment_extension: ["txt"], exclude_attachment_filename: ["beach.png"] })), [spaced])
    }))

  it.effect("bad input is refused with the error object", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner } = yield* guildWithChannel
      const search = (body: unknown) => api.request("POST", "/search/messages", { token: owner.token, body })
      const many = (n: number, value: (i: number) => unknown) => Array.from({ length: n }, (_, i) => value(i))
      for (
        const body of [
          { author_type: ["robot"] },
          { author_type: "bot" },
          { exclude_author_type: [null] },
          { author_type: many(21, () => "user") },
          { embed_provider: "YouTube" },
          { embed_provider: [1] },
          { exclude_embed_provider: many(51, (i) => `p${i}`) },
          { embed_provider: ["x".repeat(257)] },
          { attachment_filename: "a.txt" },
          { attachment_filename: many(101, (i) => `f${i}.txt`) },
          { exclude_attachment_filename: [{ name: "a.txt" }] },
          { attachment_extension: "pdf" },
          { attachment_extension: many(51, (i) => `e${i}`) },
          { exclude_attachment_extension: [true] }
        ]
      ) {
        expectError(yield* search(body), 400, "INVALID_FORM_BODY")
      }
      // The most allowed is fine.
      found(yield* search({ author_type: many(20, () => "bot"), exclude_attachment_filename: many(100, (i) => `f${i}`) }))
      assert.strictEqual(fieldCode(yield* search({ attachment_extension: [""] })), "STRING_LENGTH_INVALID")
    }))
})
