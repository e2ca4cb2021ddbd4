import { Context, Effect, Layer } from "effect"
import * as oidc from "openid-client"
import { BadRequest, invalidField, serviceUnavailable, type Unavailable } from "../model/Errors.ts"
import type { SsoSettingsRow } from "./SettingsRules.ts"

/** What the provider says about the person, once the code is exchanged and the ID token checked. */
export interface ProviderClaims {
  readonly issuer: string
  readonly subject: string
  readonly email: string | undefined
  readonly emailVerified: boolean
  readonly name: string | undefined
}

export interface AuthorizationRequest {
  readonly redirectUri: string
  readonly scope: string
  readonly state: string
  readonly nonce: string
  readonly codeChallenge: string
}

export interface CodeExchange {
  readonly redirectUri: string
  readonly code: string
  readonly state: string
  readonly nonce: string
  readonly codeVerifier: string
}

const DISCOVERY_TTL_MILLIS = 60 * 60 * 1000
const PROVIDER_TIMEOUT_SECONDS = 10

const unreachable = () => serviceUnavailable("The identity provider could not be reached; try again later")
const invalidToken = () => invalidField("id_token", "INVALID_SSO_TOKEN", "The identity provider's answer did not pass verification")
const rejectedCode = () => invalidField("code", "INVALID_SSO_AUTHORIZATION_CODE", "The identity provider did not accept this code")

/** Network trouble and provider outages are retryable (503); a bad code or token is the client's (400). */
const classify = (error: unknown): BadRequest | Unavailable => {
  if (error instanceof oidc.ResponseBodyError || error instanceof oidc.AuthorizationResponseError) return rejectedCode()
  if (error instanceof oidc.ClientError) {
    return error.code === "OAUTH_RESPONSE_IS_NOT_CONFORM" || error.code === "OAUTH_RESPONSE_IS_NOT_JSON"
      ? unreachable()
      : invalidToken()
  }
  if (error instanceof oidc.WWWAuthenticateChallengeError) return invalidToken()
  return unreachable()
}

const claim = (source: Readonly<Record<string, unknown>>, key: string): string | undefined => {
  const value = source[key]
  return typeof value === "string" && value.length > 0 ? value : undefined
}

/** Some providers send `"true"` for email_verified. */
const verifiedFlag = (value: unknown): boolean => value === true || value === "true"

const fingerprint = (s: SsoSettingsRow) =>
  JSON.stringify([s.issuer, s.authorization_url, s.token_url, s.userinfo_url, s.jwks_url, s.client_id, s.client_secret])

/**
 * The OpenID Connect relying party (openid-client): discovery, the
 * authorization URL with PKCE, state and nonce, and the code exchange in which
 * openid-client checks the ID token (issuer, audience, nonce, and its
 * signature against the provider's JWKS).
 */
export class RelyingParty extends Context.Service<RelyingParty, {
  readonly authorizationUrl: (settings: SsoSettingsRow, request: AuthorizationRequest) => Effect.Effect<string, Unavailable>
  readonly exchange: (settings: SsoSettingsRow, exchange: CodeExchange) => Effect.Effect<ProviderClaims, BadRequest | Unavailable>
}>()("guildhall/RelyingParty") {
  static readonly layer = Layer.sync(RelyingParty, () => {
    // Discovery is cached per set of provider settings; a changed setting is a new entry.
    const cache = new Map<string, { readonly config: oidc.Configuration; readonly at: number }>()

    const build = async (s: SsoSettingsRow, issuer: string, clientId: string): Promise<oidc.Configuration> => {
      const insecure = new URL(issuer).protocol === "http:"
      const explicit = {
        ...(s.authorization_url === null ? {} : { authorization_endpoint: s.authorization_url }),
        ...(s.token_url === null ? {} : { token_endpoint: s.token_url }),
        ...(s.userinfo_url === null ? {} : { userinfo_endpoint: s.userinfo_url }),
        ...(s.jwks_url === null ? {} : { jwks_uri: s.jwks_url })
      }
      const complete = s.authorization_url !== null && s.token_url !== null && s.jwks_url !== null
      const discover = async (): Promise<oidc.ServerMetadata> => {
        const found = await oidc.discovery(new URL(issuer), clientId, undefined, oidc.None(), {
          timeout: PROVIDER_TIMEOUT_SECONDS,
          execute: insecure ? [oidc.allowInsecureRequests] : []
        })
        // Only the metadata itself, not the helper methods attached to it.
        const { supportsPKCE: _, ...metadata } = found.serverMetadata()
        return metadata
      }
      const discovered: oidc.ServerMetadata = complete ? { issuer } : await discover()
      const metadata: oidc.ServerMetadata = { ...discovered, ...explicit }
      const methods = metadata.token_endpoint_auth_methods_supported
      const auth = s.client_secret === null
        ? oidc.None()
        : methods === undefined || methods.includes("client_secret_basic") || !methods.includes("client_secret_post")
        ? oidc.ClientSecretBasic(s.client_secret)
        : oidc.ClientSecretPost(s.client_secret)
      const config = new oidc.Configuration(metadata, clientId, undefined, auth)
      config.timeout = PROVIDER_TIMEOUT_SECONDS
      if (insecure) oidc.allowInsecureRequests(config)
      // Check the ID token's signature against the JWKS too, not only its claims.
      oidc.enableNonRepudiationChecks(config)
      return config
    }

    const configuration = (s: SsoSettingsRow) =>
      Effect.gen(function*() {
        const { issuer, client_id } = s
        if (issuer === null || client_id === null) return yield* unreachable()
        const key = fingerprint(s)
        const cached = cache.get(key)
        if (cached !== undefined && Date.now() - cached.at < DISCOVERY_TTL_MILLIS) return cached.config
        const config = yield* Effect.tryPromise({
          try: () => build(s, issuer, client_id),
          catch: (cause) => cause
        }).pipe(
          Effect.tapError((cause) => Effect.logWarning("SSO provider discovery failed", { issuer, cause: String(cause) })),
          Effect.mapError(unreachable)
        )
        cache.clear()
        cache.set(key, { config, at: Date.now() })
        return config
      })

    const authorizationUrl = Effect.fn("RelyingParty.authorizationUrl")((s: SsoSettingsRow, r: AuthorizationRequest) =>
      Effect.flatMap(configuration(s), (config) =>
        Effect.try({
          try: () =>
            oidc.buildAuthorizationUrl(config, {
              redirect_uri: r.redirectUri,
              scope: r.scope,
              state: r.state,
              nonce: r.nonce,
              code_challenge: r.codeChallenge,
              code_challenge_method: "S256"
            }).href,
          // The provider's metadata has no usable authorization endpoint.
          catch: unreachable
        })))

    const exchange = Effect.fn("RelyingParty.exchange")(function*(s: SsoSettingsRow, x: CodeExchange) {
      const config = yield* configuration(s)
      const metadata = config.serverMetadata()
      // The client hands us code and state only; rebuild the provider's redirect to us from them.
      const callback = new URL(x.redirectUri)
      callback.searchParams.set("code", x.code)
      callback.searchParams.set("state", x.state)
      if (metadata.authorization_response_iss_parameter_supported === true) {
        callback.searchParams.set("iss", metadata.issuer)
      }
      const claims = yield* Effect.tryPromise({
        try: async () => {
          const tokens = await oidc.authorizationCodeGrant(config, callback, {
            pkceCodeVerifier: x.codeVerifier,
            expectedNonce: x.nonce,
            expectedState: x.state,
            idTokenExpected: true
          })
          const idToken = tokens.claims()
          if (idToken === undefined) throw new oidc.ClientError("no ID token")
          // With the code flow most providers put profile claims in userinfo, not the ID token.
          const userinfo: Readonly<Record<string, unknown>> = metadata.userinfo_endpoint === undefined
            ? {}
            : await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub)
          return { idToken, userinfo }
        },
        catch: (cause) => cause
      }).pipe(
        Effect.tapError((cause) => Effect.logWarning("SSO code exchange failed", { cause: String(cause) })),
        Effect.mapError(classify)
      )
      const { idToken, userinfo } = claims
      const emailSource = claim(userinfo, "email") !== undefined ? userinfo : idToken
      return {
        issuer: metadata.issuer,
        subject: idToken.sub,
        email: claim(emailSource, "email"),
        emailVerified: verifiedFlag(emailSource["email_verified"]),
        name: claim(userinfo, "name") ?? claim(idToken, "name") ?? claim(userinfo, "preferred_username") ??
          claim(idToken, "preferred_username")
      }
    })

    return RelyingParty.of({ authorizationUrl, exchange })
  })
}
