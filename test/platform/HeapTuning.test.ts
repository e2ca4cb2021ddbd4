import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"

const root = join(import.meta.dirname, "..", "..")

/** The first import of an entry file: the module evaluated before any other. */
const firstImport = (file: string) => readFileSync(join(root, file), "utf8").match(/^import\s+(?:[^"]*from\s+)?"([^"]+)"/m)?.[1]

describe("heap tuning", () => {
  // Pretenuring decisions are made while the process boots; the flag must be set before anything is allocated.
  it("is the first module both entry points evaluate", () => {
    assert.strictEqual(firstImport("src/main.ts"), "./platform/HeapTuning.ts")
    assert.strictEqual(firstImport("shards/main.ts"), "../src/platform/HeapTuning.ts")
  })
})
