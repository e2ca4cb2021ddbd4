import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ok, openDm, user } from "../dms/Fixtures.ts"
import { guildWithChannel, sent } from "../messages/Fixtures.ts"
import { payload, postMultipart } from "../messages/Multipart.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { addMember } from "../support/Cast.ts"
import { TestMail } from "../support/Mail.ts"
import { arrayIn, fetchFile, filesOf, jsonIn, untilFinished } from "./Zips.ts"

const IN_GUILD = 23

// Pages of 5 with a rest of 150 ms: the export takes long enough to watch its progress.
layer(
  TestApi.layerWithOutside({
    ARCHIVE_JOB_SWEEP_SECONDS: "1",
    ARCHIVE_PAGE_SIZE: "5",
    ARCHIVE_PAGE_PAUSE_MS: "150",
    ARCHIVE_DOWNLOAD_URL_SECONDS: "3"
  }),
  { timeout: 120_000, excludeTestServices: true }
)("harvest: a user's own data export", (it) => {
  it.effect("runs as a job with progress, mails the user, and downloads through a signed URL that expires", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const mail = yield* TestMail
      const me = yield* user
      const g = yield* guildWithChannel
      yield* addMember(g.guildId, me.userId)
      const written = yield* Effect.forEach(Array.from({ length: IN_GUILD }, (_, i) => i), (i) => sent(me.token, g.channelId, `hello ${i}`))
      yield* sent(g.owner.token, g.channelId, "not theirs")
      const withFile = field(ok(yield* postMultipart(me.token, g.channelId, [
        payload({ content: "with a file", attachments: [{ id: 0 }] }),
        { name: "files[0]", filename: "notes.txt", data: Buffer.from("hello"), type: "text/plain" }
      ])), "id")
      const friend = yield* user
      const dm = yield* openDm(me, friend)
      const dmMessage = field(ok(yield* api.request("POST", `/channels/${dm}/messages`, { token: me.token, body: { content: "a dm" } })), "id")

      assert.isNull(ok(yield* api.request("GET", "/users/@me/harvest/latest", { token: me.token })))
      const created = ok(yield* api.request("POST", "/users/@me/harvest", { token: me.token }))
      const harvestId = field(created, "harvest_id")
      expect(created).toMatchObject({ status: "pending" })
      // One at a time, and one per period.
      expectError(yield* api.request("POST", "/users/@me/harvest", { token: me.token }), 429, "RATE_LIMITED")
      expectError(yield* api.request("GET", `/users/@me/harvest/${harvestId}/download`, { token: me.token }), 400, "HARVEST_NOT_READY")

      const { last, seen } = yield* untilFinished(api.request("GET", `/users/@me/harvest/${harvestId}`, { token: me.token }))
      expect(last).toMatchObject({ harvest_id: harvestId, status: "completed", progress_percent: 100, error_message: null })
      assert.isNotNull(field(last, "expires_at"))
      assert.isTrue(Number(field(last, "file_size")) > 0)
      const midway = seen.filter((s) => field(s, "status") === "processing" && field(s, "progress_step") === "messages")
      assert.isTrue(midway.some((s) => {
        const percent: unknown = Reflect.get(typeof s === "object" && s !== null ? s : {}, "progress_percent")
        return typeof percent === "number" && percent > 5 && percent < 100
      }), JSON.stringify(seen))
      expect(ok(yield* api.request("GET", "/users/@me/harvest/latest", { token: me.token }))).toMatchObject({ harvest_id: harvestId })

      const ready = yield* mail.next(me.email, /data export is ready/)
      assert.include(ready.text, "download")

      const download = ok(yield* api.request("GET", `/users/@me/harvest/${harvestId}/download`, { token: me.token }))
      // Signed for PUBLIC_URL (not set here): asked of this API instead.
      const signed = new URL(field(download, "download_url"))
      const url = `${api.baseUrl}${signed.pathname}${signed.search}`
      const file = yield* fetchFile(url)
      assert.strictEqual(file.status, 200)
      assert.strictEqual(file.contentType, "application/zip")
      const files = yield* filesOf(file.bytes)
      expect(jsonIn(files, "account.json")).toMatchObject({ id: me.userId, email: me.email })
      assert.notInclude(files.get("account.json") ?? "", "password")
      expect(arrayIn(files, "guilds.json")).toEqual([expect.objectContaining({ guild_id: g.guildId })])
      expect(arrayIn(files, "dm_channels.json")).toEqual([expect.objectContaining({ channel_id: dm, recipient_ids: expect.arrayContaining([friend.userId]) })])
      const messages = arrayIn(files, "messages.json")
      expect(messages.map((m) => field(m, "id")).sort()).toEqual([...written, withFile, dmMessage].sort())
      expect(messages).toContainEqual(expect.objectContaining({ id: written[7], content: "hello 7", channel_id: g.channelId, author_id: me.userId }))
      expect(messages).toContainEqual(expect.objectContaining({ id: dmMessage, content: "a dm", guild_id: null }))
      // Attachments as links to their files.
      const attached = messages.find((m) => field(m, "id") === withFile)
      expect(attached).toMatchObject({ attachments: [{ filename: "notes.txt", url: expect.stringContaining("/attachments/") }] })
      expect(ok(yield* api.request("GET", `/users/@me/harvest/${harvestId}`, { token: me.token }))).toMatchObject({
        download_url_expires_at: field(download, "expires_at")
      })

      // A signature made without the archive's key, or for another expiry, is refused.
      const forged = url.replace(/signature=[^&]+/, "signature=" + "A".repeat(43))
      assert.strictEqual((yield* fetchFile(forged)).status, 403)
      const later = url.replace(/expires=(\d+)/, (_, e: string) => `expires=${Number(e) + 3600}`)
      assert.strictEqual((yield* fetchFile(later)).status, 403)
      yield* Effect.sleep("3500 millis")
      const expired = yield* fetchFile(url)
      assert.strictEqual(expired.status, 403)
      assert.include(expired.bytes.toString(), "expired")
    }))

  it.effect("another user's harvest is unknown; anonymous callers and bad ids are refused", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* user
      const other = yield* user
      const harvestId = field(ok(yield* api.request("POST", "/users/@me/harvest", { token: owner.token })), "harvest_id")
      expectError(yield* api.request("GET", `/users/@me/harvest/${harvestId}`, { token: other.token }), 404, "UNKNOWN_HARVEST")
      expectError(yield* api.request("GET", `/users/@me/harvest/${harvestId}/download`, { token: other.token }), 404, "UNKNOWN_HARVEST")
      assert.isNull(ok(yield* api.request("GET", "/users/@me/harvest/latest", { token: other.token })))
      expectError(yield* api.request("GET", "/users/@me/harvest/123", { token: other.token }), 404, "UNKNOWN_HARVEST")

      for (const [method, path] of [
        ["POST", "/users/@me/harvest"],
        ["GET", "/users/@me/harvest/latest"],
        ["GET", `/users/@me/harvest/${harvestId}`],
        ["GET", `/users/@me/harvest/${harvestId}/download`]
      ] as const) {
        assert.strictEqual((yield* api.request(method, path)).status, 401, `${method} ${path}`)
      }
      assert.strictEqual((yield* api.request("GET", "/users/@me/harvest/not-a-snowflake", { token: owner.token })).status, 400)
      assert.strictEqual((yield* api.request("GET", "/users/@me/harvest/1%002/download", { token: owner.token })).status, 400)
      const badFile = yield* fetchFile(`${api.baseUrl}/archives/${harvestId}/file?expires=soon&signature=x`)
      assert.strictEqual(badFile.status, 400)
    }))
})
