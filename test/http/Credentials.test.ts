import { assert, describe, expect, it as pure, layer } from "@effect/vitest"
import { Context, Effect, Option } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Api } from "../../src/http/Api.ts"
import { AdminAuthentication, type CredentialKind, Credentials, UserAuthentication } from "../../src/http/Authentication.ts"
import { accessToken, createApplication } from "../oauth2/Fixtures.ts"
import { expectError, field, type Reply, TestApi } from "../support/Api.ts"

/*
 * Who may call what: every endpoint declares the credentials it accepts
 * (`Credentials`), the declarations follow reference/operations.md's `auth:`
 * lines, and every endpoint refuses every other kind as the production service
 * does: a valid bot or OAuth2 token on a route that does not accept it is 403
 * ACCESS_DENIED; a credential of a foreign kind on a bot-only route is 401
 * INVALID_TOKEN, on a bearer-only route 401 UNAUTHORIZED; none at all, or an
 * admin key outside /admin, is 401 UNAUTHORIZED.
 */

const operations = readFileSync(join(import.meta.dirname, "..", "..", "..", "shared", "spec", "reference", "operations.md"), "utf8")
const shape = (path: string) => path.replace(/\{[^}]+\}|:[a-z_]+/gi, "{}")
const kindOf: Record<string, CredentialKind | "none"> = { sessionToken: "session", botToken: "bot", oauth2Token: "bearer", none: "none" }

/** `METHOD /path-shape` to the kinds its `auth:` line names. */
const reference = new Map<string, ReadonlyArray<CredentialKind | "none">>()
{
  let operation = ""
  for (const line of operations.split("\n")) {
    const heading = /^## (\w+) (\S+)/.exec(line)
    if (heading !== null) operation = `${heading[1]} ${shape(heading[2] ?? "")}`
    const auth = /^- auth: (.+)$/.exec(line)
    if (auth !== null) reference.set(operation, (auth[1] ?? "").split(", ").map((name) => kindOf[name] ?? "none"))
  }
}

/** Built endpoints the reference does not list, with what they accept and why. */
const notInReference: Record<string, ReadonlyArray<CredentialKind> | "none" | "admin"> = {
  "GET /_health": "none",
  // Prometheus's scrape, with an operator's key (src/admin/metrics).
  "GET /metrics": "admin",
  "GET /_ready": "none",
  "GET /media/{}": "none",
  "GET /attachments/{}/{}": "none",
  // An archive's zip: the signed URL is the credential (src/archives/Signing.ts).
  "GET /archives/{}/file": "none",
  "GET /gateway/socket": "none", // IDENTIFY carries the token
  "GET /gateway": ["session", "bot"],
  "POST /auth/login/mfa/sms": "none",
  "POST /auth/login/mfa/sms/send": "none",
  // A person's own phone and second factors: no bot has them.
  "POST /users/@me/phone": ["session"],
  "DELETE /users/@me/phone": ["session"],
  "POST /users/@me/mfa/sms/enable": ["session"],
  "POST /users/@me/mfa/sms/disable": ["session"],
  "POST /users/@me/sudo/mfa/sms/send": ["session"],
  "POST /users/@me/messages/delete/test": ["session"],
  // Guild settings, as PATCH /guilds/{guild_id}.
  "PATCH /guilds/{}/detached-banner": ["session", "bot"],
  "PATCH /guilds/{}/text-channel-flexible-names": ["session", "bot"],
  // The error-tracker format's route (the reference's webhook formats list none of this neutral name): the token is in the path.
  "POST /webhooks/{}/{}/errors": "none",
  // GIF pickers (src/gifs): a person's own, as in production (bots refused).
  ...Object.fromEntries(["gifa", "gifb"].flatMap((provider) =>
    ["GET featured", "GET search", "GET trending-gifs", "GET suggest", "POST register-share"].map((route) => {
      const [method, path] = route.split(" ")
      return [`${method} /${provider}/${path}`, ["session"] as const]
    })))
}

/**
 * Where the declaration knowingly differs from the reference. GET /gateway/bot
 * is `none` there (it only checks the token's form), but its answer is the
 * bot's own (session_start_limit), so it needs the bot's token.
 */
const deviations: Record<string, ReadonlyArray<CredentialKind>> = {
  "GET /gateway/bot": ["session", "bot"]
}

interface Route {
  readonly key: string
  readonly method: string
  readonly path: string
  readonly accepts: ReadonlyArray<CredentialKind> | "none" | "admin"
}

const routes: ReadonlyArray<Route> = Object.values(Api.groups).flatMap((group) =>
  Object.values(group.endpoints).map((endpoint): Route => {
    const key = `${endpoint.method} ${shape(endpoint.path)}`
    const middlewares = [...endpoint.middlewares]
    const declared = Context.getOption(endpoint.annotations, Credentials)
    const accepts = middlewares.includes(AdminAuthentication)
      ? "admin"
      : middlewares.includes(UserAuthentication)
      ? Option.match(declared, { onNone: () => [], onSome: (credentials) => credentials.kinds })
      : "none"
    return { key, method: endpoint.method, path: endpoint.path, accepts }
  })
)

const sorted = (kinds: ReadonlyArray<string> | string) => typeof kinds === "string" ? kinds : [...kinds].sort().join(", ")

describe("credential declarations", () => {
  pure("every built endpoint accepts exactly the credentials of its reference auth line", () => {
    assert.isAbove(routes.length, 200)
    for (const route of routes) {
      const expected = deviations[route.key] ?? reference.get(route.key) ?? notInReference[route.key] ??
        (route.path.startsWith("/admin/") ? "admin" : undefined)
      assert.isDefined(expected, `${route.key} is neither in the reference nor listed here`)
      const wanted = expected === undefined || typeof expected === "string" ? expected : expected.includes("none") ? "none" : expected
      assert.strictEqual(sorted(route.accepts), sorted(wanted ?? ""), route.key)
    }
  })
})

/** The refusal the production service answers for `kind` on a route accepting `accepts`. */
const refusal = (accepts: ReadonlyArray<CredentialKind>, kind: CredentialKind | "none" | "admin") => {
  const botOnly = accepts.length === 1 && accepts[0] === "bot"
  const bearerOnly = accepts.length === 1 && accepts[0] === "bearer"
  if (kind === "none") return [401, "UNAUTHORIZED"] as const
  if (botOnly) return [401, "INVALID_TOKEN"] as const
  if (bearerOnly || kind === "admin" || kind === "session") return [401, "UNAUTHORIZED"] as const
  return [403, "ACCESS_DENIED"] as const
}

const describeReply = (reply: Reply) => `${reply.status} ${JSON.stringify(reply.body)}`

layer(TestApi.layer, { timeout: 240_000, excludeTestServices: true })("credentials over HTTP", (it) => {
  it.effect("every endpoint refuses every credential kind it does not accept", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const person = yield* api.register()
      const developer = yield* api.register()
      const bot = (yield* createApplication(developer.token)).botToken
      const bearer = yield* accessToken(developer.token, person.token, "identify email guilds")
      const credentials = { session: person.token, bot, bearer, admin: `Admin ${api.adminKey}` } as const
      let checked = 0
      for (const route of routes) {
        if (route.accepts === "none") continue
        const path = route.path.replace(/:[a-z_]+/gi, "1")
        const kinds = route.accepts === "admin"
          ? (["none", "bot", "bearer"] as const)
          : (["none", "session", "bot", "bearer", "admin"] as const).filter((kind) =>
            kind === "none" || kind === "admin" || !route.accepts.includes(kind))
        for (const kind of kinds) {
          const reply = yield* api.request(route.method, path, kind === "none" ? {} : { token: credentials[kind] })
          const [status, code] = route.accepts === "admin" ? [401, "UNAUTHORIZED"] as const : refusal(route.accepts, kind)
          assert.strictEqual(reply.status, status, `${kind} on ${route.key}: ${describeReply(reply)}`)
          expect(reply.body, `${kind} on ${route.key}`).toMatchObject({ code })
          checked++
        }
      }
      assert.isAbove(checked, 400)
    }))

  it.effect("an access token reads what its scopes allow, and a missing scope is 403 MISSING_OAUTH_SCOPE", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const person = yield* api.register()
      const developer = yield* api.register()
      const guild = yield* api.request("POST", "/guilds", { token: person.token, body: { name: "Readable" } })
      const guildId = field(guild.body, "id")
      const both = yield* accessToken(developer.token, person.token, "identify guilds")
      const me = yield* api.request("GET", "/users/@me", { token: both })
      assert.strictEqual(me.status, 200, describeReply(me))
      assert.strictEqual(field(me.body, "id"), person.userId)
      // Without the `email` scope the address stays hidden.
      expect(me.body).toMatchObject({ email: null })
      expect(me.body).not.toHaveProperty("phone")
      const guilds = yield* api.request("GET", "/users/@me/guilds", { token: both })
      assert.strictEqual(guilds.status, 200, describeReply(guilds))
      expect(guilds.body).toMatchObject([{ id: guildId }])
      assert.strictEqual((yield* api.request("GET", `/guilds/${guildId}`, { token: both })).status, 200)
      assert.strictEqual((yield* api.request("GET", `/guilds/${guildId}/roles`, { token: both })).status, 200)

      const identifyOnly = yield* accessToken(developer.token, person.token, "identify")
      const refused = yield* api.request("GET", "/users/@me/guilds", { token: identifyOnly })
      expectError(refused, 403, "MISSING_OAUTH_SCOPE")
      expect(refused.body).toMatchObject({ required_scope: "guilds" })
      expectError(yield* api.request("GET", `/guilds/${guildId}`, { token: identifyOnly }), 403, "MISSING_OAUTH_SCOPE")
      const guildsOnly = yield* accessToken(developer.token, person.token, "guilds")
      expectError(yield* api.request("GET", "/users/@me", { token: guildsOnly }), 403, "MISSING_OAUTH_SCOPE")
      // An unknown access token is no identity at all.
      expectError(yield* api.request("GET", "/users/@me", { token: "Bearer nope" }), 401, "UNAUTHORIZED")
    }))
})
