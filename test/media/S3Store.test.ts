import { assert, describe, expect, it, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Option, Redacted } from "effect"
import { rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { settingsConfig } from "../../src/platform/Config.ts"
import { hashOf } from "../../src/media/ContentAddress.ts"
import { MediaStore } from "../../src/media/MediaStore.ts"
import { sha256Hex, signV4 } from "../../src/media/SigV4.ts"
import { FAKE_S3, FakeS3, fakeS3Env } from "./FakeS3.ts"
import { png } from "./Fixtures.ts"

const storeAt = (endpoint: string, secretAccessKey: string = FAKE_S3.secretAccessKey) =>
  MediaStore.s3({ ...FAKE_S3, endpoint, secretAccessKey: Redacted.make(secretAccessKey) })

describe("signV4", () => {
  it("signs AWS's documented GET Object example to the documented signature", () => {
    const headers = signV4(
      { method: "GET", url: new URL("https://examplebucket.s3.amazonaws.com/test.txt"), headers: { range: "bytes=0-9" }, payloadHash: sha256Hex("") },
      { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "us-east-1" },
      new Date("2013-05-24T00:00:00Z")
    )
    assert.strictEqual(headers["x-amz-date"], "20130524T000000Z")
    assert.strictEqual(
      headers.authorization,
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, " +
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, " +
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
    )
  })
})

layer(FakeS3.layer, { excludeTestServices: true })("MediaStore.s3 against a fake S3 over HTTP", (it) => {
  it.effect("stores bytes under their SHA-256 and gives them back", () =>
    Effect.gen(function*() {
      const s3 = yield* FakeS3
      const store = storeAt(s3.endpoint)
      const bytes = png(12, 12)
      const hash = yield* store.put(bytes)
      assert.strictEqual(hash, hashOf(bytes))
      assert.deepStrictEqual(Buffer.from(s3.objects.get(hash) ?? []), bytes)
      const back = yield* store.get(hash)
      assert.ok(back !== undefined)
      assert.deepStrictEqual(Buffer.from(back), bytes)
    }))

  it.effect("removes an object, and removing one that is not there is no failure", () =>
    Effect.gen(function*() {
      const s3 = yield* FakeS3
      const store = storeAt(s3.endpoint)
      const hash = yield* store.put(png(17, 17))
      yield* store.remove(hash)
      assert.isFalse(s3.objects.has(hash))
      assert.strictEqual(yield* store.get(hash), undefined)
      yield* store.remove(hash)
      yield* store.remove("../not-a-hash")
      assert.notInclude(s3.requests, "DELETE ../not-a-hash")
    }))

  it.effect("putFile streams a file from disk under its hash (message attachments)", () =>
    Effect.gen(function*() {
      const s3 = yield* FakeS3
      const store = storeAt(s3.endpoint)
      const bytes = Buffer.alloc(3 * 1024 * 1024 + 7, 0x5a)
      const path = join(tmpdir(), `guildhall-putfile-${process.pid}-${Date.now()}`)
      yield* Effect.promise(() => writeFile(path, bytes))
      const hash = hashOf(bytes)
      yield* store.putFile(path, hash, bytes.length)
      assert.deepStrictEqual(Buffer.from(s3.objects.get(hash) ?? []), bytes)
      yield* store.putFile(path, hash, bytes.length)
      assert.deepStrictEqual(s3.requests.filter((r) => r.endsWith(hash)), [`HEAD ${hash}`, `PUT ${hash}`, `HEAD ${hash}`])
      yield* Effect.promise(() => rm(path, { force: true }))
    }))

  it.effect("sends an object once: a second put of the same bytes only asks whether it is there", () =>
    Effect.gen(function*() {
      const s3 = yield* FakeS3
      const store = storeAt(s3.endpoint)
      const bytes = png(13, 13)
      const hash = yield* store.put(bytes)
      assert.strictEqual(yield* store.put(bytes), hash)
      assert.deepStrictEqual(s3.requests.filter((r) => r.endsWith(hash)), [`HEAD ${hash}`, `PUT ${hash}`, `HEAD ${hash}`])
    }))

  it.effect("answers undefined for a missing object, and never asks for a name that is no hash", () =>
    Effect.gen(function*() {
      const s3 = yield* FakeS3
      const store = storeAt(s3.endpoint)
      assert.strictEqual(yield* store.get("0".repeat(64)), undefined)
      const asked = s3.requests.length
      assert.strictEqual(yield* store.get("../other-bucket/x"), undefined)
      assert.strictEqual(s3.requests.length, asked)
    }))

  it.effect("fails, storing nothing, when the store refuses the signature", () =>
    Effect.gen(function*() {
      const s3 = yield* FakeS3
      const store = storeAt(s3.endpoint, "not-the-secret")
      const bytes = png(14, 14)
      const put = yield* Effect.exit(store.put(bytes))
      assert.ok(Exit.isFailure(put))
      expect(String(put.cause)).toContain("answered 403")
      assert.isFalse(s3.objects.has(hashOf(bytes)))
      // A HEAD answer has no body; GET's names the refusal.
      const get = yield* Effect.exit(store.get(hashOf(bytes)))
      assert.ok(Exit.isFailure(get))
      expect(String(get.cause)).toContain("403 SignatureDoesNotMatch")
    }))

  it.effect("fails when the store is down or unreachable", () =>
    Effect.gen(function*() {
      const s3 = yield* FakeS3
      s3.setOutage(true)
      const down = yield* Effect.exit(storeAt(s3.endpoint).put(png(15, 15)))
      s3.setOutage(false)
      assert.ok(Exit.isFailure(down))
      expect(String(down.cause)).toContain("answered 500")
      const unreachable = yield* Effect.exit(storeAt("http://127.0.0.1:9").get("0".repeat(64)))
      assert.ok(Exit.isFailure(unreachable))
    }))
})

describe("MEDIA_S3_* settings", () => {
  const parse = (env: Record<string, string>) =>
    Effect.runSyncExit(settingsConfig.parse(ConfigProvider.fromEnv({ env })))

  it("are all given or none", () => {
    const none = parse({})
    assert.ok(Exit.isSuccess(none))
    assert.ok(Option.isNone(none.value.mediaS3))
    const all = parse(fakeS3Env("http://127.0.0.1:9000/"))
    assert.ok(Exit.isSuccess(all))
    const s3 = Option.getOrThrow(all.value.mediaS3)
    expect(s3).toMatchObject({ endpoint: "http://127.0.0.1:9000", bucket: FAKE_S3.bucket, region: FAKE_S3.region })
    assert.strictEqual(Redacted.value(s3.secretAccessKey), FAKE_S3.secretAccessKey)
  })

  it("stop the start with a message naming what is missing or wrong", () => {
    const { MEDIA_S3_SECRET_ACCESS_KEY: _, MEDIA_S3_BUCKET: __, ...half } = fakeS3Env("http://127.0.0.1:9000")
    const missing = parse(half)
    assert.ok(Exit.isFailure(missing))
    expect(String(missing.cause)).toContain("MEDIA_S3_BUCKET, MEDIA_S3_SECRET_ACCESS_KEY must be set too")
    const badBucket = parse({ ...fakeS3Env("http://127.0.0.1:9000"), MEDIA_S3_BUCKET: "Not_A_Bucket" })
    assert.ok(Exit.isFailure(badBucket))
    expect(String(badBucket.cause)).toContain("MEDIA_S3_BUCKET")
    assert.ok(Exit.isFailure(parse({ ...fakeS3Env("http://127.0.0.1:9000"), MEDIA_S3_ENDPOINT: "not a url" })))
  })
})
