import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { JsonText, toJson } from "../../../shards/actors/Definitions.ts"
import { decodeReply } from "../../../shards/actors/Registry.ts"

describe("replies as they cross processes", () => {
  const page = `[{"id":"1","content":"say \\"hi\\"\\n"},{"id":"2","content":"ünïcode ☃"}]`

  it.effect("JSON text travels as itself, and null as null", () =>
    Effect.gen(function*() {
      const encode = toJson(JsonText)
      assert.strictEqual(encode(page), page)
      assert.strictEqual(encode(null), "null")
      assert.strictEqual(yield* decodeReply(JsonText, encode(page)), page)
      assert.strictEqual(yield* decodeReply(JsonText, encode(null)), null)
    }))

  it.effect("any other reply travels as the JSON of its encoded value", () =>
    Effect.gen(function*() {
      // A string reply of the same shape is quoted: only JsonText is passed through.
      const text = Schema.NullOr(Schema.String)
      assert.strictEqual(toJson(text)(page), JSON.stringify(page))
      assert.strictEqual(yield* decodeReply(text, toJson(text)(page)), page)
      const struct = Schema.Struct({ found: Schema.Boolean })
      assert.strictEqual(toJson(struct)({ found: true }), `{"found":true}`)
      assert.deepStrictEqual(yield* decodeReply(struct, `{"found":false}`), { found: false })
    }))
})
