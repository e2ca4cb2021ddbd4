import { afterAll, assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { hashOf } from "../../src/media/ContentAddress.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { createGuild } from "../support/Cast.ts"
import { FakeS3, fakeS3Env } from "./FakeS3.ts"
import { dataUri, png } from "./Fixtures.ts"

const dataDir = mkdtempSync(join(tmpdir(), "guildhall-s3-media-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

/** The API with MEDIA_S3_* pointing at the fake store. */
const apiOnFakeS3 = Layer.unwrap(Effect.map(FakeS3, (s3) => TestApi.layerWith({ ...fakeS3Env(s3.endpoint), DATA_DIR: dataDir }))).pipe(
  Layer.provideMerge(FakeS3.layer)
)

layer(apiOnFakeS3, { timeout: 120_000, excludeTestServices: true })("media on an S3-compatible store", (it) => {
  it.effect("stores an uploaded emoji in the bucket and serves it from there", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const s3 = yield* FakeS3
      const owner = yield* api.register()
      const { guildId } = yield* createGuild(owner.token)
      const image = png(40, 40)
      const created = yield* api.request("POST", `/guilds/${guildId}/emojis`, { token: owner.token, body: { name: "in_the_bucket", image: dataUri(image) } })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      field(created.body, "id")

      const hash = hashOf(image)
      assert.deepStrictEqual(Buffer.from(s3.objects.get(hash) ?? []), image)
      assert.isFalse(existsSync(join(dataDir, "media")))
      const served = yield* Effect.promise(() => fetch(`${api.baseUrl}/media/${hash}`))
      assert.strictEqual(served.status, 200)
      assert.strictEqual(served.headers.get("content-type"), "image/png")
      assert.deepStrictEqual(Buffer.from(yield* Effect.promise(() => served.arrayBuffer())), image)
      expectError(yield* api.request("GET", `/media/${"1".repeat(64)}`), 404, "NOT_FOUND")
    }))

  it.effect("answers 503 while the store is down, and stores nothing", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const s3 = yield* FakeS3
      const owner = yield* api.register()
      const { guildId } = yield* createGuild(owner.token)
      const image = png(41, 41)
      s3.setOutage(true)
      const upload = yield* api.request("POST", `/guilds/${guildId}/emojis`, { token: owner.token, body: { name: "lost", image: dataUri(image) } })
      const read = yield* api.request("GET", `/media/${hashOf(image)}`)
      s3.setOutage(false)
      expectError(upload, 503, "SERVICE_UNAVAILABLE")
      expectError(read, 503, "SERVICE_UNAVAILABLE")
      const listed = yield* api.request("GET", `/guilds/${guildId}/emojis`, { token: owner.token })
      assert.deepStrictEqual(listed.body, [])
    }))
})
