import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { MessageFlag } from "../../src/model/Messages.ts"
import { Permission } from "../../src/model/Permissions.ts"
import { png } from "../media/Fixtures.ts"
import { expectError, field, type Reply, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"
import { CHAT, fieldCode, guildWithChannel, memberWith, send } from "./Fixtures.ts"
import { BOUNDARY, payload, postHugeUpload, postMultipart } from "./Multipart.ts"

interface Attachment {
  readonly id: string
  readonly filename: string
  readonly url: string
  readonly size: number
  readonly content_type: string
}
const attachmentsOf = (reply: Reply): ReadonlyArray<Attachment> => {
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return (reply.body as { attachments: ReadonlyArray<Attachment> }).attachments
}

const invalid = (reply: Reply, code: string) => {
  expectError(reply, 400, "INVALID_FORM_BODY")
  assert.strictEqual(fieldCode(reply), code, JSON.stringify(reply.body))
}

const text = (name: string, value: string, filename = `${name}.txt`) => ({ name, filename, data: Buffer.from(value), type: "text/plain" })

/** The API process's resident memory (the admin node stats). */
const serverMemory = Effect.gen(function*() {
  const api = yield* TestApi
  const reply = yield* api.request("GET", "/admin/gateway/stats", { token: `Admin ${api.adminKey}` })
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return (reply.body as { memory: { total: number } }).memory.total
})

layer(TestApi.layer, { timeout: 300_000, excludeTestServices: true })("message attachments over HTTP", (it) => {
  it.effect("multipart create stores the files, serves them back, and attachments can be deleted", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const member = yield* memberWith(guildId, CHAT | Permission.ATTACH_FILES)
      const image = png(3, 2)
      const created = yield* postMultipart(member.token, channelId, [
        payload({ content: "look", attachments: [{ id: 0, description: "a grey square" }, { id: 1, filename: "notes.txt" }] }),
        { name: "files[0]", filename: "grey.png", data: image, type: "image/png" },
        text("files[1]", "hello file", "notes.txt")
      ])
      const [picture, notes] = attachmentsOf(created)
      expect(created.body).toMatchObject({ content: "look", author: { id: member.userId } })
      expect(picture).toMatchObject({ filename: "grey.png", description: "a grey square", content_type: "image/png", size: image.length, width: 3, height: 2, flags: 0 })
      expect(notes).toMatchObject({ filename: "notes.txt", content_type: "text/plain; charset=utf-8", size: 10 })
      assert.notStrictEqual(picture?.id, notes?.id)

      // Served back with its type, from the path in its url.
      const served = yield* Effect.promise(() => fetch(`${api.baseUrl}${new URL(picture?.url ?? "").pathname}`))
      assert.strictEqual(served.status, 200)
      assert.strictEqual(served.headers.get("content-type"), "image/png")
      assert.deepStrictEqual(Buffer.from(yield* Effect.promise(() => served.arrayBuffer())), image)
      const servedText = yield* Effect.promise(() => fetch(`${api.baseUrl}${new URL(notes?.url ?? "").pathname}`))
      assert.strictEqual(yield* Effect.promise(() => servedText.text()), "hello file")
      assert.strictEqual(servedText.headers.get("x-content-type-options"), "nosniff")

      const id = field(created.body, "id")
      const stored = yield* queryAt(api.databaseUrl, "SELECT jsonb_array_length(attachments) AS n FROM messages WHERE id = $1", [id])
      assert.deepStrictEqual(stored, [{ n: 2 }])
      const read = yield* api.request("GET", `/channels/${channelId}/messages/${id}`, { token: owner.token })
      assert.deepStrictEqual(attachmentsOf(read).map((a) => a.filename), ["grey.png", "notes.txt"])

      // A message of files alone needs no text.
      const filesOnly = yield* postMultipart(member.token, channelId, [payload({ attachments: [{ id: 0 }] }), text("files[0]", "x")])
      assert.strictEqual(attachmentsOf(filesOnly).length, 1)

      // Another member may not remove the author's attachment without MANAGE_MESSAGES.
      const other = yield* memberWith(guildId, CHAT)
      const attachmentPath = `/channels/${channelId}/messages/${id}/attachments/${notes?.id}`
      expectError(yield* api.request("DELETE", attachmentPath, { token: other.token }), 403, "MISSING_PERMISSIONS")
      const removed = yield* api.request("DELETE", attachmentPath, { token: member.token })
      assert.strictEqual(removed.status, 204, JSON.stringify(removed.body))
      const after = yield* api.request("GET", `/channels/${channelId}/messages/${id}`, { token: owner.token })
      assert.deepStrictEqual(attachmentsOf(after).map((a) => a.filename), ["grey.png"])
      invalid(yield* api.request("DELETE", attachmentPath, { token: member.token }), "ATTACHMENT_ID_NOT_FOUND_IN_MESSAGE")
    }))

  it.effect("voice messages: one audio file with duration and waveform", () =>
    Effect.gen(function*() {
      const { owner, channelId } = yield* guildWithChannel
      const audio = { name: "files[0]", filename: "voice-message.ogg", data: Buffer.from("OggS fake audio"), type: "audio/ogg" }
      const voice = (meta: Record<string, unknown>, extra: Record<string, unknown> = {}, files = [audio]) =>
        postMultipart(owner.token, channelId, [payload({ flags: MessageFlag.VOICE_MESSAGE, attachments: files.map((_, i) => ({ id: i, ...meta })), ...extra }), ...files])
      const good = yield* voice({ duration: 3, waveform: "AAAA" })
      expect(attachmentsOf(good)).toMatchObject([{ filename: "voice-message.ogg", content_type: "audio/ogg", duration: 3, waveform: "AAAA" }])
      expect(good.body).toMatchObject({ flags: MessageFlag.VOICE_MESSAGE, content: "" })

      invalid(yield* voice({ duration: 3 }), "VOICE_MESSAGES_ATTACHMENT_WAVEFORM_REQUIRED")
      invalid(yield* voice({ waveform: "AAAA" }), "VOICE_MESSAGES_ATTACHMENT_DURATION_REQUIRED")
      invalid(yield* voice({ duration: 5000, waveform: "AAAA" }), "VOICE_MESSAGES_DURATION_EXCEEDS_LIMIT")
      invalid(yield* voice({ duration: 3, waveform: "AAAA" }, { content: "hi" }), "VOICE_MESSAGES_CANNOT_HAVE_CONTENT")
      invalid(yield* voice({ duration: 3, waveform: "AAAA" }, { favorite_meme_id: "1" }), "VOICE_MESSAGES_CANNOT_HAVE_FAVORITE_MEMES")
      invalid(
        yield* voice({ duration: 3, waveform: "AAAA" }, {}, [audio, { ...audio, name: "files[1]", filename: "b.ogg" }]),
        "VOICE_MESSAGES_REQUIRE_SINGLE_ATTACHMENT"
      )
      invalid(yield* voice({ duration: 3, waveform: "AAAA" }, {}, [text("files[0]", "words")]), "VOICE_MESSAGES_ATTACHMENT_MUST_BE_AUDIO")
      // Without files at all (a JSON create), a voice message is refused too.
      invalid(yield* send(owner.token, channelId, { flags: MessageFlag.VOICE_MESSAGE }), "VOICE_MESSAGES_REQUIRE_SINGLE_ATTACHMENT")
    }))

  it.effect("bad input: each attachment validation code", () =>
    Effect.gen(function*() {
      const { owner, channelId } = yield* guildWithChannel
      const post = (parts: Parameters<typeof postMultipart>[2]) => postMultipart(owner.token, channelId, parts)
      const meta0 = payload({ attachments: [{ id: 0 }] })
      invalid(yield* post([text("files[0]", "x")]), "PAYLOAD_JSON_REQUIRED_FOR_MULTIPART")
      invalid(yield* post([{ name: "payload_json", value: "{not json" }]), "INVALID_JSON_IN_PAYLOAD_JSON")
      invalid(yield* post([payload({ content: "x".repeat(2001) })]), "CONTENT_EXCEEDS_MAX_LENGTH")
      invalid(yield* post([meta0, text("file", "x")]), "INVALID_FILE_FIELD_NAME")
      invalid(yield* post([meta0, text("files[10]", "x")]), "FILE_INDEX_EXCEEDS_MAXIMUM")
      invalid(yield* post([meta0, text("files[0]", "x"), text("files[0]", "y")]), "MULTIPLE_FILES_FOR_INDEX_NOT_ALLOWED")
      invalid(yield* post([meta0, text("files[0]", "x"), text("files[00]", "y")]), "DUPLICATE_FILE_INDEX")
      invalid(yield* post([payload({ content: "x" }), text("files[0]", "x")]), "ATTACHMENTS_METADATA_REQUIRED_WHEN_UPLOADING")
      invalid(yield* post([payload({ content: "x", attachments: [{ id: 0 }] })]), "ATTACHMENT_METADATA_WITHOUT_FILES")
      invalid(yield* post([payload({ attachments: [{ id: 0 }, { id: 1 }] }), text("files[0]", "x")]), "NO_FILE_FOR_ATTACHMENT_METADATA")
      invalid(yield* post([meta0, text("files[0]", "x"), text("files[1]", "y")]), "NO_METADATA_FOR_FILE")
      invalid(yield* post([payload({ attachments: [{ id: 0 }, { id: 0 }] }), text("files[0]", "x")]), "DUPLICATE_ATTACHMENT_IDS_NOT_ALLOWED")
      invalid(yield* post([payload({ attachments: [{ id: 0, filename: "other.txt" }] }), text("files[0]", "x", "a.txt")]), "FILENAME_MISMATCH_FOR_ATTACHMENT")
      invalid(yield* post([meta0, text("files[0]", "x", "bad|name.txt")]), "FILENAME_INVALID_CHARACTERS")
      invalid(yield* post([meta0, text("files[0]", "x", "   ")]), "FILENAME_EMPTY_AFTER_NORMALIZATION")
      invalid(yield* post([meta0, text("files[0]", "x", `${"n".repeat(300)}.txt`)]), "FILENAME_LENGTH_INVALID")
      invalid(yield* postMultipart(owner.token, channelId, [], Buffer.from(`--${BOUNDARY}\r\nthis is not a part header\r\n`)), "FAILED_TO_PARSE_MULTIPART_FORM_DATA")
      // Metadata in a JSON create describes files that cannot be there.
      invalid(yield* send(owner.token, channelId, { content: "x", attachments: [{ id: 0 }] }), "NO_FILE_FOR_ATTACHMENT_METADATA")
      // A path in a file name is dropped, not kept.
      const pathed = yield* post([meta0, text("files[0]", "x", "../../etc/passwd")])
      expect(attachmentsOf(pathed)).toMatchObject([{ filename: "passwd", content_type: "application/octet-stream" }])
    }))

  it.effect("forbidden: ATTACH_FILES, SEND_MESSAGES and strangers", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { guildId, channelId } = yield* guildWithChannel
      const noFiles = yield* memberWith(guildId, CHAT)
      const files = [payload({ content: "x", attachments: [{ id: 0 }] }), text("files[0]", "x")]
      expectError(yield* postMultipart(noFiles.token, channelId, files), 403, "MISSING_PERMISSIONS")
      // Text alone is still fine for them.
      assert.strictEqual((yield* postMultipart(noFiles.token, channelId, [payload({ content: "words only" })])).status, 200)
      const readOnly = yield* memberWith(guildId, Permission.VIEW_CHANNEL | Permission.ATTACH_FILES)
      expectError(yield* postMultipart(readOnly.token, channelId, files), 403, "MISSING_PERMISSIONS")
      const stranger = yield* api.register()
      expectError(yield* postMultipart(stranger.token, channelId, files), 403, "MISSING_ACCESS")
      const rows = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM messages WHERE channel_id = $1 AND attachments <> '[]'", [channelId])
      assert.deepStrictEqual(rows, [{ n: 0 }])
    }))

  it.effect("size limits are enforced while streaming: an oversized upload is refused without being held", () =>
    Effect.gen(function*() {
      const { owner, channelId } = yield* guildWithChannel
      const before = yield* serverMemory
      const huge = yield* postHugeUpload(owner.token, channelId, 80)
      assert.strictEqual(huge.status, 413, JSON.stringify(huge.body))
      expect(huge.body).toMatchObject({ code: "FILE_SIZE_TOO_LARGE" })
      const after = yield* serverMemory
      // 80 MiB went through the server; far less of it may have stayed.
      assert.isBelow(after - before, 40 * 1024 * 1024, `resident memory grew from ${before} to ${after}`)

      // Three files of 20 MiB: each within its limit, too much together.
      const twenty = Buffer.alloc(20 * 1024 * 1024, 1)
      const total = yield* postMultipart(owner.token, channelId, [
        payload({ attachments: [{ id: 0 }, { id: 1 }, { id: 2 }] }),
        { name: "files[0]", filename: "a.bin", data: twenty },
        { name: "files[1]", filename: "b.bin", data: twenty },
        { name: "files[2]", filename: "c.bin", data: twenty }
      ])
      invalid(total, "MESSAGE_TOTAL_ATTACHMENT_SIZE_TOO_LARGE")
      // A JSON body keeps the server's 1 MB cap.
      const api = yield* TestApi
      const bigJson = yield* api.request("POST", `/channels/${channelId}/messages`, { token: owner.token, body: { content: "x", nonce: "y".repeat(2 * 1024 * 1024) } })
      assert.strictEqual(bigJson.status, 413, JSON.stringify(bigJson.body))
      // The server still answers after all that.
      const ok = yield* postMultipart(owner.token, channelId, [payload({ attachments: [{ id: 0 }] }), { name: "files[0]", filename: "ok.bin", data: twenty }])
      expect(attachmentsOf(ok)).toMatchObject([{ filename: "ok.bin", size: twenty.length }])
    }))
})
