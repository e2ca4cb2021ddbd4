import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { field, TestApi } from "../support/Api.ts"

/** The password `api.register()` gives every account: what sudo mode asks for. */
export const PASSWORD = "correct horse battery"

/** An application of `token`'s user: its id (also its bot's), client secret and bot token. */
export const createApplication = (token: string, body: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("POST", "/oauth2/applications", { token, body: { name: "Helper Bot", ...body } })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    const bot = (reply.body as { bot?: unknown }).bot
    return { id: field(reply.body, "id"), clientSecret: field(reply.body, "client_secret"), botToken: `Bot ${field(bot, "token")}` }
  })
