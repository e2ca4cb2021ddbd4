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

export const REDIRECT = "https://client.example/callback"

/** An access token of `user` for a fresh application, holding `scope`. */
export const accessToken = (developer: string, user: string, scope: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const app = yield* createApplication(developer, { name: "Reader", redirect_uris: [REDIRECT] })
    const consent = yield* api.request("POST", "/oauth2/authorize/consent", {
      token: user,
      body: { client_id: app.id, scope, redirect_uri: REDIRECT, state: "s", response_type: "code" }
    })
    const code = new URL(field(consent.body, "redirect_to")).searchParams.get("code") ?? ""
    const tokens = yield* api.request("POST", "/oauth2/token", {
      rawBody: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        client_id: app.id,
        client_secret: app.clientSecret
      }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" }
    })
    assert.strictEqual(tokens.status, 200, JSON.stringify(tokens.body))
    return `Bearer ${field(tokens.body, "access_token")}`
  })
