import { assert, expect, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { FavoriteMemeResponse } from "../../src/model/FavoriteMemes.ts"
import { Permission } from "../../src/model/Permissions.ts"
import { dataOf, identified, nextOfType } from "../gateway/Client.ts"
import { expectError, field, type Reply, TestApi } from "../support/Api.ts"
import { openDm, user } from "../dms/Fixtures.ts"
import { CHAT, guildWithChannel, memberWith, sent } from "../messages/Fixtures.ts"
import { payload, postMultipart } from "../messages/Multipart.ts"
import { dataUri, png } from "../media/Fixtures.ts"
import { MediaServer, memePng, mp4, webm } from "./MediaServer.ts"

/** Only the media server's own address is allowed: every other internal address stays refused (127.0.0.2 among them). */
const env = {
  MEDIA_FETCH_ALLOWED_NETWORKS: "127.0.0.1/32",
  MEDIA_FETCH_MAX_BYTES: String(1024 * 1024),
  MEMES_MAX_PER_USER: "3"
}

const decodeMeme = Schema.decodeUnknownSync(FavoriteMemeResponse)
const decodeMemes = Schema.decodeUnknownSync(Schema.Array(FavoriteMemeResponse))
const decodeAttachments = Schema.decodeUnknownSync(Schema.Struct({ attachments: Schema.Array(Schema.Struct({ id: Schema.String, url: Schema.String })) }))
const decodeRefusal = Schema.decodeUnknownSync(Schema.Struct({
  message: Schema.String,
  errors: Schema.optional(Schema.Array(Schema.Struct({ path: Schema.String, code: Schema.String })))
}))

const memeOf = (reply: Reply, status = 201) => {
  assert.strictEqual(reply.status, status, JSON.stringify(reply.body))
  return decodeMeme(reply.body)
}

/** The ids of the caller's saved media, as listed. */
const listedIds = (token: string) =>
  Effect.flatMap(TestApi, (api) => Effect.map(api.request("GET", "/users/@me/memes", { token }), (reply) => decodeMemes(reply.body).map((m) => m.id)))

/** The bytes and type the API serves at a meme's url (the path of it: PUBLIC_URL is not where the test API listens). */
const servedAt = (url: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const response = yield* Effect.promise(() => fetch(`${api.baseUrl}${new URL(url).pathname}`))
    assert.strictEqual(response.status, 200)
    return { type: response.headers.get("content-type"), bytes: Buffer.from(yield* Effect.promise(() => response.arrayBuffer())) }
  })

const layers = Layer.mergeAll(TestApi.layerWith(env), MediaServer.layer)

layer(layers, { timeout: 240_000, excludeTestServices: true })("saved media over HTTP", (it) => {
  const fromUrl = (token: string, body: unknown) => Effect.flatMap(TestApi, (api) => api.request("POST", "/users/@me/memes", { token, body }))

  it.effect("from URLs: stored, served, listed newest first, patched and deleted, each change told to the user's sessions", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const server = yield* MediaServer
      const me = yield* api.register()
      const { client } = yield* identified(me.token)

      const picture = memeOf(yield* fromUrl(me.token, {
        url: `${server.url}/meme.png`,
        name: "  grey cat ",
        alt_text: " a grey rectangle ",
        tags: ["cats", " ", "grey", "cats"]
      }))
      expect(picture).toMatchObject({
        user_id: me.userId,
        name: "grey cat",
        alt_text: "a grey rectangle",
        tags: ["cats", "grey"],
        filename: "meme.png",
        content_type: "image/png",
        size: memePng.length,
        width: 16,
        height: 8,
        duration: null,
        is_gifv: false,
        gifb_slug: null,
        gifa_slug_id: null
      })
      assert.notStrictEqual(picture.attachment_id, picture.id)
      expect(dataOf(yield* nextOfType(client, "FAVORITE_MEME_CREATE"))).toEqual(picture)
      const served = yield* servedAt(picture.url)
      assert.deepStrictEqual(served.bytes, memePng)
      assert.strictEqual(served.type, "image/png")

      // A GIF provider's video is a gifv; without a name, the file's is taken.
      const clip = memeOf(yield* fromUrl(me.token, { url: `${server.url}/clip.mp4`, gifa_slug_id: "123456" }))
      expect(clip).toMatchObject({ name: "clip", filename: "clip.mp4", content_type: "video/mp4", is_gifv: true, gifa_slug_id: "123456", width: null })
      assert.deepStrictEqual((yield* servedAt(clip.url)).bytes, mp4)
      assert.deepStrictEqual(yield* listedIds(me.token), [clip.id, picture.id])
      expect((yield* api.request("GET", `/users/@me/memes/${picture.id}`, { token: me.token })).body).toEqual(picture)

      // The same bytes once only, whatever URL they come from.
      const again = yield* fromUrl(me.token, { url: `${server.url}/served-as-text.png` })
      expectError(again, 400, "INVALID_FORM_BODY")
      expect(again.body).toMatchObject({ errors: [{ path: "media", code: "MEDIA_ALREADY_IN_FAVORITE_MEMES" }] })

      const patched = memeOf(yield* api.request("PATCH", `/users/@me/memes/${picture.id}`, {
        token: me.token,
        body: { name: "dog", alt_text: null, tags: ["x"] }
      }), 200)
      expect(patched).toEqual({ ...picture, name: "dog", alt_text: null, tags: ["x"] })
      expect(dataOf(yield* nextOfType(client, "FAVORITE_MEME_UPDATE"))).toEqual(patched)
      // An empty patch changes nothing; null tags keep them.
      expect(memeOf(yield* api.request("PATCH", `/users/@me/memes/${picture.id}`, { token: me.token, body: { tags: null } }), 200))
        .toEqual(patched)

      const deleted = yield* api.request("DELETE", `/users/@me/memes/${picture.id}`, { token: me.token })
      assert.strictEqual(deleted.status, 204, JSON.stringify(deleted.body))
      expect(dataOf(yield* nextOfType(client, "FAVORITE_MEME_DELETE"))).toEqual({ meme_id: picture.id })
      expectError(yield* api.request("GET", `/users/@me/memes/${picture.id}`, { token: me.token }), 404, "UNKNOWN_FAVORITE_MEME")
      expectError(yield* api.request("DELETE", `/users/@me/memes/${picture.id}`, { token: me.token }), 404, "UNKNOWN_FAVORITE_MEME")
      // The bytes may be shared (content-addressed), so they stay.
      assert.deepStrictEqual((yield* servedAt(picture.url)).bytes, memePng)
      assert.deepStrictEqual(yield* listedIds(me.token), [clip.id])
    }))

  it.effect("from URLs: too large, not media, internal addresses and redirects to them are refused", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const server = yield* MediaServer
      const me = yield* api.register()
      const refused = (url: string, status: number, code: string) =>
        Effect.map(fromUrl(me.token, { url }), (reply) => {
          expectError(reply, status, code)
          return decodeRefusal(reply.body)
        })

      yield* refused(`${server.url}/huge.png`, 400, "FILE_SIZE_TOO_LARGE")
      expect((yield* refused(`${server.url}/notes.txt`, 400, "INVALID_FORM_BODY")).errors).toEqual([
        expect.objectContaining({ path: "url", code: "INVALID_IMAGE_FORMAT" })
      ])
      yield* refused(`${server.url}/text-claiming-png.png`, 400, "INVALID_FORM_BODY")
      // 127.0.0.2 is loopback and not in MEDIA_FETCH_ALLOWED_NETWORKS, though a server answers there.
      expect((yield* refused(`${server.otherUrl}/meme.png`, 400, "MEDIA_METADATA_ERROR")).message).toContain("address")
      const redirect = `${server.url}/redirect?to=${encodeURIComponent(`${server.otherUrl}/meme.png`)}`
      expect((yield* refused(redirect, 400, "MEDIA_METADATA_ERROR")).message).toContain("address")
      assert.strictEqual(server.hits("127.0.0.2/meme.png"), 0)
      yield* refused(`${server.url}/loop`, 400, "MEDIA_METADATA_ERROR")
      for (const url of ["not a url", "ftp://127.0.0.1/meme.png", "javascript:alert(1)"]) {
        expect((yield* refused(url, 400, "INVALID_FORM_BODY")).errors).toEqual([expect.objectContaining({ path: "url", code: "INVALID_URL_FORMAT" })])
      }
      assert.deepStrictEqual((yield* api.request("GET", "/users/@me/memes", { token: me.token })).body, [])
    }))

  it.effect("from a message: an attachment (outliving the message) or an embed, as the caller may read it", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const server = yield* MediaServer
      const { owner, guildId, channelId } = yield* guildWithChannel
      const member = yield* memberWith(guildId, CHAT)
      const posted = yield* postMultipart(owner.token, channelId, [
        payload({ content: "look", attachments: [{ id: 0, description: "a grey square" }, { id: 1, filename: "notes.txt" }] }),
        { name: "files[0]", filename: "grey.png", data: memePng, type: "image/png" },
        { name: "files[1]", filename: "notes.txt", data: Buffer.from("words"), type: "text/plain" }
      ])
      assert.strictEqual(posted.status, 200, JSON.stringify(posted.body))
      const messageId = field(posted.body, "id")
      const [image, notes] = decodeAttachments(posted.body).attachments
      const save = (token: string, id: string, body: unknown) =>
        api.request("POST", `/channels/${channelId}/messages/${id}/memes`, { token, body })

      const saved = memeOf(yield* save(member.token, messageId, { name: "square", attachment_id: image?.id }))
      expect(saved).toMatchObject({ user_id: member.userId, name: "square", alt_text: "a grey square", filename: "grey.png", content_type: "image/png", width: 16, height: 8, is_gifv: false })
      assert.strictEqual(saved.content_hash, /\/attachments\/([0-9a-f]{64})\//.exec(image?.url ?? "")?.[1])
      const notMedia = yield* save(member.token, messageId, { name: "notes", attachment_id: notes?.id })
      expectError(notMedia, 400, "INVALID_FORM_BODY")
      expect(notMedia.body).toMatchObject({ errors: [{ path: "attachment_id", code: "NO_VALID_MEDIA_IN_MESSAGE" }] })
      const unknownAttachment = yield* save(member.token, messageId, { name: "x", attachment_id: "123" })
      expect(unknownAttachment.body).toMatchObject({ errors: [{ path: "attachment_id", code: "ATTACHMENT_ID_NOT_FOUND_IN_MESSAGE" }] })
      // With neither named, the first media attachment: the same bytes the member already saved.
      expect((yield* save(member.token, messageId, { name: "again" })).body).toMatchObject({ errors: [{ code: "MEDIA_ALREADY_IN_FAVORITE_MEMES" }] })

      // Deleting the message leaves the meme and its file.
      assert.strictEqual((yield* api.request("DELETE", `/channels/${channelId}/messages/${messageId}`, { token: owner.token })).status, 204)
      assert.deepStrictEqual((yield* servedAt(saved.url)).bytes, memePng)
      expect((yield* api.request("GET", `/users/@me/memes/${saved.id}`, { token: member.token })).body).toEqual(saved)

      // An embed's image, fetched from where it points.
      const withEmbed = yield* api.request("POST", `/channels/${channelId}/messages`, {
        token: owner.token,
        body: { content: "a clip", embeds: [{ title: "words only" }, { title: "clip", image: { url: `${server.url}/clip.webm` } }] }
      })
      assert.strictEqual(withEmbed.status, 200, JSON.stringify(withEmbed.body))
      const embedMessage = field(withEmbed.body, "id")
      const fromEmbed = memeOf(yield* save(member.token, embedMessage, { name: "clip", embed_index: 1, tags: ["video"] }))
      expect(fromEmbed).toMatchObject({ content_type: "video/webm", filename: "clip.webm", tags: ["video"], is_gifv: false })
      assert.deepStrictEqual((yield* servedAt(fromEmbed.url)).bytes, webm)
      expect((yield* save(member.token, embedMessage, { name: "x", embed_index: 0 })).body)
        .toMatchObject({ errors: [{ path: "embed_index", code: "NO_VALID_MEDIA_IN_MESSAGE" }] })
      expect((yield* save(member.token, embedMessage, { name: "x", embed_index: 2 })).body)
        .toMatchObject({ errors: [{ path: "embed_index", code: "EMBED_INDEX_OUT_OF_BOUNDS" }] })
      const plain = yield* sent(owner.token, channelId, "no media at all")
      expect((yield* save(member.token, plain, { name: "x" })).body).toMatchObject({ errors: [{ path: "media", code: "NO_VALID_MEDIA_IN_MESSAGE" }] })
      expectError(yield* save(member.token, "123", { name: "x" }), 404, "UNKNOWN_MESSAGE")

      // Who may not read the channel may not save from it.
      const viewer = yield* memberWith(guildId, Permission.VIEW_CHANNEL)
      expectError(yield* save(viewer.token, embedMessage, { name: "x", embed_index: 1 }), 403, "MISSING_PERMISSIONS")
      const stranger = yield* api.register()
      const outsider = yield* save(stranger.token, embedMessage, { name: "x", embed_index: 1 })
      assert.oneOf(outsider.status, [403, 404], JSON.stringify(outsider.body))
      assert.deepStrictEqual((yield* api.request("GET", "/users/@me/memes", { token: stranger.token })).body, [])
    }))

  it.effect("from a DM: its recipients may save its media, nobody else; an embed of one of our files is read from the store", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const alice = yield* user
      const bob = yield* user
      const eve = yield* user
      const dm = yield* openDm(alice, bob)
      const posted = yield* postMultipart(alice.token, dm, [
        payload({ attachments: [{ id: 0 }] }),
        { name: "files[0]", filename: "tiny.png", data: png(2, 2), type: "image/png" }
      ])
      assert.strictEqual(posted.status, 200, JSON.stringify(posted.body))
      const messageId = field(posted.body, "id")
      const [attachment] = decodeAttachments(posted.body).attachments
      const save = (token: string, id: string, body: unknown) =>
        api.request("POST", `/channels/${dm}/messages/${id}/memes`, { token, body })
      const saved = memeOf(yield* save(bob.token, messageId, { name: "tiny" }))
      expect(saved).toMatchObject({ user_id: bob.userId, width: 2, height: 2, filename: "tiny.png" })
      expectError(yield* save(eve.token, messageId, { name: "tiny" }), 403, "MISSING_ACCESS")

      // An embed pointing at one of our own files (PUBLIC_URL's origin, http://localhost:8080 here, where
      // no server of the test listens) is taken from the media store, not fetched.
      const embedded = yield* api.request("POST", `/channels/${dm}/messages`, {
        token: alice.token,
        body: { embeds: [{ title: "ours", image: { url: attachment?.url } }] }
      })
      assert.strictEqual(embedded.status, 200, JSON.stringify(embedded.body))
      const own = memeOf(yield* save(alice.token, field(embedded.body, "id"), { name: "ours", embed_index: 0 }))
      assert.strictEqual(own.content_hash, saved.content_hash)
      assert.deepStrictEqual((yield* servedAt(own.url)).bytes, png(2, 2))
    }))

  it.effect("an operator's purge of an emoji keeps the file while a saved meme shows the same bytes", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const image = png(40, 40)
      const emoji = yield* api.request("POST", `/guilds/${guildId}/emojis`, { token: owner.token, body: { name: "kite", image: dataUri(image) } })
      assert.strictEqual(emoji.status, 200, JSON.stringify(emoji.body))
      const posted = yield* postMultipart(owner.token, channelId, [
        payload({ attachments: [{ id: 0 }] }),
        { name: "files[0]", filename: "kite.png", data: image, type: "image/png" }
      ])
      const meme = memeOf(yield* api.request("POST", `/channels/${channelId}/messages/${field(posted.body, "id")}/memes`, {
        token: owner.token,
        body: { name: "kite" }
      }))
      const purged = yield* api.request("POST", "/admin/assets/purge", { token: `Admin ${api.adminKey}`, body: { ids: [field(emoji.body, "id")] } })
      expect(purged.body).toMatchObject({ processed: [{ found_in_db: true }], errors: [] })
      assert.deepStrictEqual((yield* servedAt(meme.url)).bytes, image)
    }))

  it.effect("the per-user limit (MEMES_MAX_PER_USER) holds for both ways of saving", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const server = yield* MediaServer
      const { owner, channelId } = yield* guildWithChannel
      for (const file of ["meme.png", "clip.mp4", "clip.webm"]) memeOf(yield* fromUrl(owner.token, { url: `${server.url}/${file}` }))
      const full = yield* fromUrl(owner.token, { url: `${server.url}/meme.png` })
      expectError(full, 400, "MAX_FAVORITE_MEMES")
      const posted = yield* postMultipart(owner.token, channelId, [
        payload({ attachments: [{ id: 0 }] }),
        { name: "files[0]", filename: "other.png", data: png(4, 4), type: "image/png" }
      ])
      const messageId = field(posted.body, "id")
      expectError(yield* api.request("POST", `/channels/${channelId}/messages/${messageId}/memes`, { token: owner.token, body: { name: "x" } }), 400, "MAX_FAVORITE_MEMES")
      // Room again once one is deleted.
      const [newest] = yield* listedIds(owner.token)
      assert.strictEqual((yield* api.request("DELETE", `/users/@me/memes/${newest}`, { token: owner.token })).status, 204)
      memeOf(yield* api.request("POST", `/channels/${channelId}/messages/${messageId}/memes`, { token: owner.token, body: { name: "x" } }))
    }))

  it.effect("bad input is refused with the error object; anonymous callers get 401; another user's meme is unknown", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const server = yield* MediaServer
      const me = yield* api.register()
      const other = yield* api.register()
      const { owner, channelId } = yield* guildWithChannel
      const messageId = yield* sent(owner.token, channelId, "hello")
      const invalid = (reply: Reply, path: string, code?: string) => {
        expectError(reply, 400, "INVALID_FORM_BODY")
        expect(reply.body).toMatchObject({ errors: [code === undefined ? { path } : { path, code }] })
      }
      const url = `${server.url}/meme.png`
      invalid(yield* fromUrl(me.token, {}), "url")
      invalid(yield* fromUrl(me.token, { url, name: "x".repeat(101) }), "name", "STRING_LENGTH_INVALID")
      invalid(yield* fromUrl(me.token, { url, alt_text: "x".repeat(501) }), "alt_text", "STRING_LENGTH_INVALID")
      invalid(yield* fromUrl(me.token, { url, tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }), "tags")
      invalid(yield* fromUrl(me.token, { url, tags: ["x".repeat(31)] }), "tags.0", "STRING_LENGTH_INVALID")
      invalid(yield* fromUrl(me.token, { url, gifa_slug_id: "not-a-snowflake" }), "gifa_slug_id")
      invalid(yield* fromUrl(me.token, { url, name: "nul\u0000name" }), "name", "INVALID_FORMAT")

      const fromMessage = (body: unknown) =>
        api.request("POST", `/channels/${channelId}/messages/${messageId}/memes`, { token: owner.token, body })
      invalid(yield* fromMessage({}), "name")
      invalid(yield* fromMessage({ name: "   " }), "name", "FAVORITE_MEME_NAME_REQUIRED")
      invalid(yield* fromMessage({ name: "x", embed_index: -1 }), "embed_index")
      invalid(yield* fromMessage({ name: "x", attachment_id: "abc" }), "attachment_id")
      invalid(yield* api.request("POST", `/channels/${channelId}/messages/abc/memes`, { token: owner.token, body: { name: "x" } }), "message_id")

      const mine = memeOf(yield* fromUrl(me.token, { url }))
      const patch = (token: string, id: string, body: unknown) => api.request("PATCH", `/users/@me/memes/${id}`, { token, body })
      invalid(yield* patch(me.token, mine.id, { name: "" }), "name", "STRING_LENGTH_INVALID")
      invalid(yield* patch(me.token, mine.id, { name: " " }), "name", "FAVORITE_MEME_NAME_REQUIRED")
      invalid(yield* patch(me.token, mine.id, { tags: [42] }), "tags.0")
      invalid(yield* patch(me.token, "abc", { name: "x" }), "meme_id")
      invalid(yield* api.request("GET", "/users/@me/memes/abc", { token: me.token }), "meme_id")

      // Someone else's meme reads exactly like one that does not exist.
      expectError(yield* api.request("GET", `/users/@me/memes/${mine.id}`, { token: other.token }), 404, "UNKNOWN_FAVORITE_MEME")
      expectError(yield* patch(other.token, mine.id, { name: "mine now" }), 404, "UNKNOWN_FAVORITE_MEME")
      expectError(yield* api.request("DELETE", `/users/@me/memes/${mine.id}`, { token: other.token }), 404, "UNKNOWN_FAVORITE_MEME")
      expect((yield* api.request("GET", `/users/@me/memes/${mine.id}`, { token: me.token })).body).toEqual(mine)

      for (const [method, path, body] of [
        ["GET", "/users/@me/memes", undefined],
        ["GET", `/users/@me/memes/${mine.id}`, undefined],
        ["POST", "/users/@me/memes", { url }],
        ["POST", `/channels/${channelId}/messages/${messageId}/memes`, { name: "x" }],
        ["PATCH", `/users/@me/memes/${mine.id}`, { name: "x" }],
        ["DELETE", `/users/@me/memes/${mine.id}`, undefined]
      ] as const) {
        assert.strictEqual((yield* api.request(method, path, { body })).status, 401, `${method} ${path}`)
      }
    }))
})
