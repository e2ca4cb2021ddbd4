import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { type Rpc, RpcSerialization } from "effect/rpc"
import { Guild } from "../../shards/guild/Protocol.ts"
import { User } from "../../shards/user/Protocol.ts"
import { BadRequest, Forbidden, NotFound } from "../../src/http/Errors.ts"

/**
 * Messages between processes travel in the binary format and are stored as
 * JSON. A schema without a binary layout does not fail loudly: the runner
 * stores the reply, throws while sending it, and the caller waits for its
 * timeout. So every schema of every actor message is checked here.
 */
const schemasOf = (rpc: Rpc.AnyWithProps) => [["payload", rpc.payloadSchema], ["success", rpc.successSchema], ["error", rpc.errorSchema]] as const

describe("actor protocols", () => {
  for (const entity of [Guild, User]) {
    for (const rpc of entity.protocol.requests.values()) {
      it.effect(`${entity.type}.${rpc._tag} has a binary layout for payload, success and error`, () =>
        Effect.gen(function*() {
          const serialization = yield* RpcSerialization.RpcSerialization
          for (const [part, schema] of schemasOf(rpc)) {
            assert.doesNotThrow(() => serialization.codecFor(schema), undefined, `${rpc._tag} ${part}`)
          }
        }).pipe(Effect.provide(RpcSerialization.layerSchemaBinary())))
    }
  }

  it("actor errors come back as their own class after a JSON round trip (stored replies)", () => {
    const get = Guild.protocol.requests.get("Get")
    assert.isDefined(get)
    if (get === undefined) return
    const codec = Schema.toCodecJson(get.errorSchema)
    for (const error of [
      new BadRequest({ code: "INVALID_FORM_BODY", message: "m", errors: [{ path: "name", message: "x" }] }),
      new Forbidden({ code: "MISSING_ACCESS", message: "m" }),
      new NotFound({ code: "UNKNOWN_GUILD", message: "m" })
    ]) {
      const json = JSON.parse(JSON.stringify(Schema.encodeUnknownSync(codec)(error)))
      const back = Schema.decodeUnknownSync(codec)(json)
      assert.strictEqual(back.constructor, error.constructor)
      assert.deepStrictEqual({ ...back }, { ...error })
    }
  })
})
