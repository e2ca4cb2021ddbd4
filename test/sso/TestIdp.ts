import { Context, Effect, Layer } from "effect"
import { generateKeyPairSync, randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { Provider } from "oidc-provider"
import { freePort } from "../support/Processes.ts"

/** The web client's callback page that the provider sends people back to; never fetched by the tests. */
export const REDIRECT_URI = "http://localhost:5173/auth/sso/callback"

export interface Person {
  readonly email: string
  readonly email_verified: boolean
  readonly name: string
}

/** The people the provider knows, by subject; `signIn` takes one of these subjects. */
export const PEOPLE: Readonly<Record<string, Person>> = {
  "alice-sub": { email: "alice@example.com", email_verified: true, name: "Alice Liddell" },
  "mallory-sub": { email: "mallory@evil.test", email_verified: true, name: "Mallory" },
  "unverified-sub": { email: "unverified@example.com", email_verified: false, name: "Una Verified" },
  // Another identity at the provider claiming Alice's address.
  "impostor-sub": { email: "alice@example.com", email_verified: true, name: "Not Alice" },
  "carol-sub": { email: "carol@example.com", email_verified: true, name: "Carol" }
}

const signingJwk = (kid: string, withPrivate: boolean) => {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
  return { ...(withPrivate ? privateKey : publicKey).export({ format: "jwk" }), kid, alg: "RS256", use: "sig" }
}

/**
 * A real OpenID provider (oidc-provider) on a loopback port over http, with one
 * confidential client, PKCE required, and an interaction endpoint that signs in
 * the person named by the authorization request's `login_hint` and grants
 * consent, as a person clicking through would.
 */
export class TestIdp extends Context.Service<TestIdp, {
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
  /** A JWKS with the provider's key id but another key: ID tokens must fail against it. */
  readonly wrongJwksUrl: string
  /** Follows an authorization URL as a browser would; answers the redirect back to REDIRECT_URI. */
  readonly signIn: (authorizationUrl: string, subject: string) => Effect.Effect<URL>
}>()("test/TestIdp") {
  static readonly layer = Layer.effect(
    TestIdp,
    Effect.gen(function*() {
      const port = yield* freePort
      const issuer = `http://127.0.0.1:${port}`
      const clientId = "guildhall-test"
      const clientSecret = randomBytes(24).toString("base64url")
      const wrongJwks = { keys: [signingJwk("idp-key", false)] }

      const provider = new Provider(issuer, {
        clients: [{
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: [REDIRECT_URI],
          grant_types: ["authorization_code"],
          response_types: ["code"],
          token_endpoint_auth_method: "client_secret_basic"
        }],
        jwks: { keys: [signingJwk("idp-key", true)] },
        cookies: { keys: [randomBytes(16).toString("hex")] },
        pkce: { required: () => true },
        features: { devInteractions: { enabled: false } },
        claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
        interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
        findAccount: async (_ctx, sub) => {
          const person = PEOPLE[sub]
          return person === undefined ? undefined : { accountId: sub, claims: async () => ({ sub, ...person }) }
        }
      })
      const handle = provider.callback()

      const finishInteraction = async (req: IncomingMessage, res: ServerResponse) => {
        const details = await provider.interactionDetails(req, res)
        const accountId = String(details.params["login_hint"] ?? "")
        const grant = new provider.Grant({ accountId, clientId: String(details.params["client_id"]) })
        grant.addOIDCScope(String(details.params["scope"]))
        const grantId = await grant.save()
        await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false })
      }

      const server = createServer((req, res) => {
        if (req.url === "/wrong-jwks") {
          res.setHeader("content-type", "application/json")
          res.end(JSON.stringify(wrongJwks))
        } else if (req.url?.startsWith("/interaction/") === true) {
          finishInteraction(req, res).catch((error: unknown) => {
            res.statusCode = 500
            res.end(String(error))
          })
        } else {
          handle(req, res)
        }
      })
      yield* Effect.acquireRelease(
        Effect.promise(() => new Promise<void>((done) => server.listen(port, "127.0.0.1", done))),
        () => Effect.promise(() => new Promise<void>((done) => server.close(() => done())))
      )

      const signIn = (authorizationUrl: string, subject: string) =>
        Effect.promise(async () => {
          const cookies = new Map<string, string>()
          let url = new URL(authorizationUrl)
          url.searchParams.set("login_hint", subject)
          for (let hop = 0; hop < 10; hop++) {
            const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join("; ")
            const response = await fetch(url, { redirect: "manual", headers: cookie === "" ? {} : { cookie } })
            for (const set of response.headers.getSetCookie()) {
              const pair = set.split(";")[0] ?? ""
              const name = pair.slice(0, pair.indexOf("="))
              const value = pair.slice(pair.indexOf("=") + 1)
              if (value === "") cookies.delete(name)
              else cookies.set(name, value)
            }
            const location = response.headers.get("location")
            if (location === null) throw new Error(`the provider stopped at ${response.status}: ${await response.text()}`)
            url = new URL(location, url)
            if (url.href.startsWith(REDIRECT_URI)) return url
          }
          throw new Error("too many redirects at the provider")
        })

      return { issuer, clientId, clientSecret, wrongJwksUrl: `${issuer}/wrong-jwks`, signIn }
    })
  )
}
