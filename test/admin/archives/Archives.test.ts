import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { ok, user } from "../../dms/Fixtures.ts"
import { guildWithChannel, sent } from "../../messages/Fixtures.ts"
import { expectError, field, TestApi } from "../../support/Api.ts"
import { addMember } from "../../support/Cast.ts"
import { ROOT } from "../../support/Processes.ts"
import { arrayIn, fetchFile, filesOf, jsonIn, untilFinished } from "../../archives/Zips.ts"
import { queryAt } from "../../support/Postgres.ts"

const admin = (key: string) => `Admin ${key}`

/** An API key holding exactly `acls`, made with the test's `*` key. */
const keyWith = (acls: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const created = yield* api.request("POST", "/admin/api-keys", { token: admin(api.adminKey), body: { name: "archives", acls } })
    return admin(field(ok(created), "key"))
  })

const call = (method: string, path: string, token?: string, body?: unknown) =>
  Effect.flatMap(TestApi, (api) => api.request(method, path, { token: token ?? admin(api.adminKey), body }))

const archivePath = (archive: unknown) =>
  `/admin/archives/${field(archive, "subject_type")}/${field(archive, "subject_id")}/${field(archive, "archive_id")}`

layer(TestApi.layerWith({ ARCHIVE_JOB_SWEEP_SECONDS: "1", ARCHIVE_PAGE_SIZE: "4" }), { timeout: 120_000, excludeTestServices: true })(
  "admin: archives of users and guilds",
  (it) => {
    it.effect("a guild archive: its channels, roles, members and messages, listed, watched and downloaded", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const g = yield* guildWithChannel
        const member = yield* user
        yield* addMember(g.guildId, member.userId)
        const ids = yield* Effect.forEach(Array.from({ length: 10 }, (_, i) => i), (i) => sent(i % 2 === 0 ? g.owner.token : member.token, g.channelId, `m${i}`))
        const channel = yield* api.request("POST", `/guilds/${g.guildId}/channels`, { token: g.owner.token, body: { type: 0, name: "second" } })
        const second = field(ok(channel), "id")
        const inSecond = yield* sent(g.owner.token, second, "over here")

        const archive = ok(yield* call("POST", "/admin/archives/guild", undefined, { guild_id: g.guildId }))
        expect(archive).toMatchObject({ subject_type: "guild", subject_id: g.guildId, progress_percent: 0, completed_at: null })
        const { last } = yield* untilFinished(call("GET", archivePath(archive)))
        expect(last).toMatchObject({ archive_id: field(archive, "archive_id"), progress_percent: 100, progress_step: "completed" })

        const listed = ok(yield* call("POST", "/admin/archives/list", undefined, { subject_type: "guild", subject_id: g.guildId }))
        expect(listed).toEqual({ archives: [expect.objectContaining({ archive_id: field(archive, "archive_id") })] })

        const download = ok(yield* call("GET", `${archivePath(archive)}/download`))
        const signed = new URL(field(download, "downloadUrl"))
        assert.isString(field(download, "expiresAt"))
        const file = yield* fetchFile(`${api.baseUrl}${signed.pathname}${signed.search}`)
        assert.strictEqual(file.status, 200)
        const files = yield* filesOf(file.bytes)
        expect(jsonIn(files, "guild.json")).toMatchObject({ id: g.guildId, owner_id: g.owner.userId })
        expect(arrayIn(files, "channels.json").map((c) => field(c, "id"))).toEqual(expect.arrayContaining([g.channelId, second]))
        expect(arrayIn(files, "roles.json")).toContainEqual(expect.objectContaining({ id: g.guildId }))
        expect(arrayIn(files, "members.json").map((m) => field(m, "user_id")).sort()).toEqual([g.owner.userId, member.userId].sort())
        expect(arrayIn(files, `messages/${g.channelId}.json`).map((m) => field(m, "id"))).toEqual(ids)
        expect(arrayIn(files, `messages/${second}.json`)).toEqual([expect.objectContaining({ id: inSecond, content: "over here" })])
      }))

    it.effect("a user archive by an operator is not the user's harvest", () =>
      Effect.gen(function*() {
        const target = yield* user
        const archive = ok(yield* call("POST", "/admin/archives/user", undefined, { user_id: target.userId }))
        expect(archive).toMatchObject({ subject_type: "user", subject_id: target.userId })
        yield* untilFinished(call("GET", archivePath(archive)))
        assert.isNull(ok(yield* call("GET", "/users/@me/harvest/latest", target.token)))
        expectError(yield* call("GET", `/users/@me/harvest/${field(archive, "archive_id")}`, target.token), 404, "UNKNOWN_HARVEST")

        // Past its expiry, the sweep removes the zip from the media store; the row stays.
        const api = yield* TestApi
        const archiveId = field(archive, "archive_id")
        const stored = yield* queryAt(api.databaseUrl, "SELECT file_hash FROM archives WHERE id = $1", [archiveId])
        const hash = String(stored[0]?.file_hash)
        const onDisk = join(ROOT, "data", "media", hash.slice(0, 2), hash)
        assert.isTrue(existsSync(onDisk), onDisk)
        yield* queryAt(api.databaseUrl, "UPDATE archives SET expires_at = now() - interval '1 second' WHERE id = $1", [archiveId])
        const deadline = Date.now() + 15_000
        while (existsSync(onDisk) && Date.now() < deadline) yield* Effect.sleep("200 millis")
        assert.isFalse(existsSync(onDisk))
        const forgotten = yield* queryAt(api.databaseUrl, "SELECT file_hash FROM archives WHERE id = $1", [archiveId])
        assert.isNull(forgotten[0]?.file_hash)
        expectError(yield* call("GET", `${archivePath(archive)}/download`), 400, "HARVEST_EXPIRED")
      }))

    it.effect("ACLs: triggering needs its subject's ACL; reading needs archive:view_all or that trigger ACL", () =>
      Effect.gen(function*() {
        const target = yield* user
        const g = yield* guildWithChannel
        const bare = yield* keyWith(["admin:authenticate"])
        const guildOnly = yield* keyWith(["admin:authenticate", "archive:trigger:guild"])
        const viewer = yield* keyWith(["admin:authenticate", "archive:view_all"])
        expectError(yield* call("POST", "/admin/archives/user", bare, { user_id: target.userId }), 403, "MISSING_PERMISSIONS")
        expectError(yield* call("POST", "/admin/archives/user", guildOnly, { user_id: target.userId }), 403, "MISSING_PERMISSIONS")
        const ofUser = ok(yield* call("POST", "/admin/archives/user", undefined, { user_id: target.userId }))
        const ofGuild = ok(yield* call("POST", "/admin/archives/guild", guildOnly, { guild_id: g.guildId }))

        expectError(yield* call("GET", archivePath(ofUser), guildOnly), 403, "MISSING_PERMISSIONS")
        expectError(yield* call("GET", `${archivePath(ofUser)}/download`, guildOnly), 403, "MISSING_PERMISSIONS")
        expectError(yield* call("POST", "/admin/archives/list", guildOnly, { subject_type: "user" }), 403, "MISSING_PERMISSIONS")
        expectError(yield* call("POST", "/admin/archives/list", bare, {}), 403, "MISSING_PERMISSIONS")
        expect(ok(yield* call("GET", archivePath(ofGuild), guildOnly))).toMatchObject({ archive_id: field(ofGuild, "archive_id") })
        const seen = ok(yield* call("POST", "/admin/archives/list", viewer, { include_expired: true, limit: 100 }))
        expect(seen).toMatchObject({
          archives: expect.arrayContaining([
            expect.objectContaining({ archive_id: field(ofUser, "archive_id") }),
            expect.objectContaining({ archive_id: field(ofGuild, "archive_id"), requested_by: expect.any(String) })
          ])
        })
        // The path must name the archive's own subject.
        const wrong = `/admin/archives/guild/${g.guildId}/${field(ofUser, "archive_id")}`
        expectError(yield* call("GET", wrong, viewer), 404, "UNKNOWN_ARCHIVE")
      }))

    it.effect("bad input is 400, unknown subjects 404, anonymous callers 401", () =>
      Effect.gen(function*() {
        expectError(yield* call("POST", "/admin/archives/user", undefined, { user_id: "abc" }), 400, "INVALID_FORM_BODY")
        assert.strictEqual((yield* call("POST", "/admin/archives/guild", undefined, {})).status, 400)
        assert.strictEqual((yield* call("POST", "/admin/archives/list", undefined, { limit: 0 })).status, 400)
        assert.strictEqual((yield* call("POST", "/admin/archives/list", undefined, { subject_type: "channel" })).status, 400)
        assert.strictEqual((yield* call("GET", "/admin/archives/channel/1/2")).status, 400)
        assert.strictEqual((yield* call("GET", "/admin/archives/user/1/x/download")).status, 400)
        expectError(yield* call("POST", "/admin/archives/user", undefined, { user_id: "12345" }), 404, "UNKNOWN_USER")
        expectError(yield* call("POST", "/admin/archives/guild", undefined, { guild_id: "12345" }), 404, "UNKNOWN_GUILD")
        expectError(yield* call("GET", "/admin/archives/user/1/2"), 404, "UNKNOWN_ARCHIVE")
        const api = yield* TestApi
        for (const [method, path] of [
          ["POST", "/admin/archives/user"],
          ["POST", "/admin/archives/guild"],
          ["POST", "/admin/archives/list"],
          ["GET", "/admin/archives/user/1/2"],
          ["GET", "/admin/archives/user/1/2/download"]
        ] as const) {
          assert.strictEqual((yield* api.request(method, path, method === "POST" ? { body: {} } : {})).status, 401, `${method} ${path}`)
        }
      }))
  }
)
