import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { MediaStore } from "../../src/media/MediaStore.ts"
import { png } from "./Fixtures.ts"

const scratch = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "guildhall-media-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

describe("MediaStore.local", () => {
  it.effect("stores bytes under their SHA-256 once and gives them back", () =>
    Effect.scoped(Effect.gen(function*() {
      const root = yield* scratch
      const store = MediaStore.local(root)
      const bytes = png(10, 10)
      const hash = yield* store.put(bytes)
      assert.strictEqual(hash, createHash("sha256").update(bytes).digest("hex"))
      assert.strictEqual(yield* store.put(bytes), hash)
      assert.deepStrictEqual(readdirSync(join(root, hash.slice(0, 2))), [hash])
      const back = yield* store.get(hash)
      assert.ok(back !== undefined)
      assert.deepStrictEqual(Buffer.from(back), bytes)
    })))

  it.effect("removes a file, and removing one that is not there is no failure", () =>
    Effect.scoped(Effect.gen(function*() {
      const store = MediaStore.local(yield* scratch)
      const hash = yield* store.put(png(11, 11))
      yield* store.remove(hash)
      assert.strictEqual(yield* store.get(hash), undefined)
      yield* store.remove(hash)
      yield* store.remove("../../etc/passwd")
    })))

  it.effect("answers undefined for a hash it does not hold or a name that is no hash", () =>
    Effect.scoped(Effect.gen(function*() {
      const store = MediaStore.local(yield* scratch)
      assert.strictEqual(yield* store.get("0".repeat(64)), undefined)
      assert.strictEqual(yield* store.get("../../etc/passwd"), undefined)
    })))

  // A full disk (the faults suite's 1-MiB tmpfs) once made every upload a 500: disk trouble was a defect.
  it.effect("a write the disk refuses fails as ObjectStoreError (a 503), leaving no partial file", () =>
    Effect.scoped(Effect.gen(function*() {
      const root = yield* scratch
      const notADirectory = join(root, "file")
      writeFileSync(notADirectory, "")
      const refused = yield* Effect.flip(MediaStore.local(notADirectory).put(png(12, 12)))
      assert.strictEqual(refused._tag, "ObjectStoreError")

      const store = MediaStore.local(join(root, "media"))
      const missing = yield* Effect.flip(store.putFile(join(root, "gone"), "a".repeat(64), 1))
      assert.strictEqual(missing._tag, "ObjectStoreError")
      assert.deepStrictEqual(readdirSync(join(root, "media", "aa")), [])
    })))
})
