import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { RpcSerialization } from "effect/rpc"
import { DmChannel } from "../../shards/dm/Protocol.ts"
import { Guild } from "../../shards/guild/Protocol.ts"
import { BadRequest, Forbidden, NotFound } from "../../src/model/Errors.ts"

/**
 * Replies between processes travel in the binary format and are stored as
 * JSON. An error schema the binary format cannot lay out does not fail
 * loudly: the runner stores the reply, throws while sending it, and the
 * caller waits for its timeout. Every guild message's errors are checked here.
 */
const samples = [
  new BadRequest({ code: "INVALID_FORM_BODY", message: "m", errors: [{ path: "name", message: "x", code: "C" }] }),
  new Forbidden({ code: "MISSING_ACCESS", message: "m" }),
  new NotFound({ code: "UNKNOWN_GUILD", message: "m" })
]

const roundTrips = (
  layer: typeof RpcSerialization.layerJson,
  name: string,
  entity: { readonly protocol: typeof Guild.protocol | typeof DmChannel.protocol } = Guild,
  actor = "guild"
) =>
  it.effect(`${actor} actor errors come back as their own class through ${name}`, () =>
    Effect.gen(function*() {
      const serialization = yield* RpcSerialization.RpcSerialization
      for (const rpc of entity.protocol.requests.values()) {
        if (rpc.errorSchema === Schema.Never) continue
        const codec = serialization.codecFor(rpc.errorSchema)
        for (const error of samples) {
          const encoded = Schema.encodeUnknownSync(codec)(error)
          const back = Schema.decodeUnknownSync(codec)(encoded)
          assert.strictEqual(back.constructor, error.constructor, `${rpc._tag}: ${error._tag}`)
          assert.deepStrictEqual({ ...back }, { ...error })
        }
      }
    }).pipe(Effect.provide(layer)))

describe("guild actor protocol", () => {
  roundTrips(RpcSerialization.layerSchemaBinary(), "the binary transport")
  roundTrips(RpcSerialization.layerJson, "JSON (stored replies)")
})

describe("DM channel actor protocol", () => {
  roundTrips(RpcSerialization.layerSchemaBinary(), "the binary transport", DmChannel, "DM channel")
  roundTrips(RpcSerialization.layerJson, "JSON (stored replies)", DmChannel, "DM channel")
})
