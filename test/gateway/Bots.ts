import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { createApplication, PASSWORD } from "../oauth2/Fixtures.ts"
import { field, TestApi } from "../support/Api.ts"

/**
 * A bot as a developer makes one: an application of `ownerToken`'s user, a
 * fresh token from the reset endpoint (copied as it is shown, without
 * "Bot "), added to `guildId` through the consent flow with `permissions`.
 */
export const addBot = (ownerToken: string, guildId: string, permissions: bigint, name = "Library Bot") =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const app = yield* createApplication(ownerToken, { name })
    const reset = yield* api.request("POST", `/oauth2/applications/${app.id}/bot/reset-token`, {
      token: ownerToken,
      body: { password: PASSWORD }
    })
    assert.strictEqual(reset.status, 200, JSON.stringify(reset.body))
    const added = yield* api.request("POST", "/oauth2/authorize/consent", {
      token: ownerToken,
      body: { client_id: app.id, scope: "bot", guild_id: guildId, permissions: permissions.toString() }
    })
    assert.strictEqual(added.status, 200, JSON.stringify(added.body))
    return { id: app.id, token: field(reset.body, "token") }
  })
