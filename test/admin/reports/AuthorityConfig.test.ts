import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option } from "effect"
import { authorityUrlConfig } from "../../../src/admin/reports/Authority.ts"

const read = (env: Record<string, string>) =>
  authorityUrlConfig.parse(ConfigProvider.fromEnv({ env })).pipe(Effect.result)

describe("AUTHORITY_REPORT_URL", () => {
  it.effect("an http(s) URL is taken, unset is none, anything else stops the start", () =>
    Effect.gen(function*() {
      const set = yield* read({ AUTHORITY_REPORT_URL: "https://authority.example/intake" })
      assert.isTrue(set._tag === "Success" && Option.getOrNull(set.success) === "https://authority.example/intake")
      const unset = yield* read({})
      assert.isTrue(unset._tag === "Success" && Option.isNone(unset.success))
      for (const bad of ["ftp://authority.example/x", "not a url", "http://"]) {
        assert.strictEqual((yield* read({ AUTHORITY_REPORT_URL: bad }))._tag, "Failure", bad)
      }
    }))
})
