import { assert, describe, it } from "@effect/vitest"
import { SharedMap } from "../../../shards/guild/SharedMap.ts"

describe("SharedMap", () => {
  it("changes make new maps and leave the old one as it was", () => {
    const before = SharedMap.from([["1", "a"], ["2", "b"]])
    const added = before.with("3", "c")
    const replaced = added.with("1", "z")
    const removed = replaced.without("2")
    assert.deepStrictEqual([before.size, added.size, replaced.size, removed.size], [2, 3, 3, 2])
    assert.strictEqual(before.get("1"), "a")
    assert.strictEqual(replaced.get("1"), "z")
    assert.isFalse(before.has("3"))
    assert.isTrue(added.has("3"))
    assert.isFalse(removed.has("2"))
    assert.isUndefined(removed.get("2"))
  })

  it("removing a missing key answers the same map", () => {
    const map = SharedMap.from([["1", 1]])
    assert.strictEqual(map.without("2"), map)
  })

  it("sets many entries at once and iterates every entry", () => {
    const map = SharedMap.empty<string, number>().withAll(Array.from({ length: 2_000 }, (_, i) => [String(i), i] as const))
    assert.strictEqual(map.size, 2_000)
    assert.strictEqual([...map.values()].reduce((sum, n) => sum + n, 0), (1_999 * 2_000) / 2)
    assert.deepStrictEqual(new Set(map.keys()).size, 2_000)
    assert.deepStrictEqual(new Map(map).get("1234"), 1234)
    assert.deepStrictEqual([...map.entries()].length, 2_000)
  })
})
