import { assert, describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Option } from "effect"
import { randomBytes } from "node:crypto"
import { seal, unseal } from "../../src/platform/Crypto.ts"
import { voiceSecretKey } from "../../src/platform/VoiceCatalog.ts"
import { failure } from "../support/Settings.ts"

const keyFrom = (env: Record<string, string>) =>
  Effect.gen(function*() {
    return yield* voiceSecretKey
  }).pipe(Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(env)), Effect.exit)

describe("media servers' secrets", () => {
  it("seal and open under the same key only; changed bytes do not open", () => {
    const key = randomBytes(32)
    const sealed = seal(key, "livekit-secret")
    expect(sealed.toString("latin1")).not.toContain("livekit-secret")
    assert.strictEqual(unseal(key, sealed), "livekit-secret")
    assert.strictEqual(unseal(randomBytes(32), sealed), undefined)
    const tampered = Buffer.from(sealed)
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] ?? 0) ^ 1
    assert.strictEqual(unseal(key, tampered), undefined)
    assert.strictEqual(unseal(key, Buffer.alloc(3)), undefined)
    // A fresh IV each time: the same secret never seals the same way twice.
    assert.notDeepEqual(seal(key, "same"), seal(key, "same"))
  })

  it.effect("VOICE_SECRET_KEY: 64 hex digits or base64 of 32 bytes; anything else stops the start; unset is none", () =>
    Effect.gen(function*() {
      const bytes = randomBytes(32)
      for (const text of [bytes.toString("hex"), bytes.toString("base64")]) {
        const exit = yield* keyFrom({ VOICE_SECRET_KEY: text })
        assert.isTrue(Exit.isSuccess(exit) && Option.isSome(exit.value) && exit.value.value.equals(bytes), text)
      }
      const unset = yield* keyFrom({})
      assert.isTrue(Exit.isSuccess(unset) && Option.isNone(unset.value))
      for (const wrong of ["short", randomBytes(16).toString("hex"), randomBytes(33).toString("base64")]) {
        assert.include(failure(yield* keyFrom({ VOICE_SECRET_KEY: wrong })), "VOICE_SECRET_KEY", wrong)
      }
    }))
})
