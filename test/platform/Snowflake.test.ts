import { assert, describe, it } from "@effect/vitest"
import { makeGenerator, SNOWFLAKE_EPOCH, snowflakeTime } from "../../src/platform/Snowflake.ts"

describe("snowflakes", () => {
  it("packs time, node id and sequence per conventions.md", () => {
    const at = Number(SNOWFLAKE_EPOCH) + 1000
    const next = makeGenerator(5, () => at)
    const first = BigInt(next())
    const second = BigInt(next())
    assert.strictEqual(first >> 22n, 1000n)
    assert.strictEqual((first >> 12n) & 0x3ffn, 5n)
    assert.strictEqual(second - first, 1n)
    assert.strictEqual(snowflakeTime(first.toString()), at)
  })

  it("keeps increasing when the clock goes back or a millisecond runs out of sequence", () => {
    let now = Number(SNOWFLAKE_EPOCH) + 5000
    const next = makeGenerator(1, () => now)
    let last = 0n
    for (let i = 0; i < 5000; i++) {
      if (i === 100) now -= 50
      const id = BigInt(next())
      assert.isTrue(id > last)
      last = id
    }
  })
})
