import { Context, Effect, Layer, Option, Schema } from "effect"
import * as oidc from "openid-client"
import { OneTimeTokens } from "../auth/OneTimeTokens.ts"
import { AppConfig } from "../platform/Config.ts"
import { type BadRequest, Forbidden, invalidField, type Unavailable } from "../model/Errors.ts"
import { SsoAccounts } from "./Accounts.ts"
import { RelyingParty } from "./RelyingParty.ts"
import { isUsable, normalizeDomain, safeRedirectTo, type SsoSettingsRow } from "./SettingsRules.ts"
import { SsoSettings } from "./Settings.ts"

/** What the server keeps between start and complete, under the state (single use, 10 minutes). */
const PendingLogin = Schema.Struct({
  issuer: Schema.String,
  redirect_uri: Schema.String,
  redirect_to: Schema.String,
  nonce: Schema.String,
  code_verifier: Schema.String
})
const decodePending = Schema.decodeUnknownOption(PendingLogin)

const DEFAULT_SCOPE = "openid email profile"
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

const disabled = () => new Forbidden({ code: "FEATURE_TEMPORARILY_DISABLED", message: "Single sign-on is not enabled" })
const badState = () => invalidField("state", "INVALID_OR_EXPIRED_SSO_STATE", "Unknown, used or expired state; start again")

/** The scope asked for: the operator's, always with `openid`. */
const scopeOf = (s: SsoSettingsRow) => {
  const words = (s.scope ?? DEFAULT_SCOPE).split(/\s+/).filter((w) => w.length > 0)
  return words.includes("openid") ? words.join(" ") : ["openid", ...words].join(" ")
}

export interface SsoStatus {
  readonly enabled: boolean
  readonly enforced: boolean
  readonly display_name: string | null
  readonly redirect_uri: string
}

/** The login flow of part A: status, start (to the provider) and complete (back with a code). */
export class SsoFlow extends Context.Service<SsoFlow, {
  readonly status: Effect.Effect<SsoStatus>
  readonly start: (input: { redirectTo?: string | null; redirectUri?: string | null }) => Effect.Effect<
    { authorization_url: string; redirect_uri: string; state: string },
    BadRequest | Forbidden | Unavailable
  >
  /** The user the provider vouched for, and where the client asked to go afterwards. */
  readonly complete: (input: { code: string; state: string }) => Effect.Effect<
    { userId: string; redirectTo: string },
    BadRequest | Forbidden | Unavailable
  >
}>()("guildhall/SsoFlow") {
  static readonly layer = Layer.effect(
    SsoFlow,
    Effect.gen(function*() {
      const settings = yield* SsoSettings
      const party = yield* RelyingParty
      const accounts = yield* SsoAccounts
      const tokens = yield* OneTimeTokens
      const { publicUrl } = yield* AppConfig

      const redirectUriOf = (s: SsoSettingsRow) => s.redirect_uri ?? `${publicUrl}/auth/sso/callback`

      const usable = Effect.flatMap(settings.get, (s) => isUsable(s) ? Effect.succeed(s) : Effect.fail(disabled()))

      const status = Effect.map(settings.get, (s): SsoStatus => ({
        enabled: isUsable(s),
        enforced: isUsable(s) && s.enforced,
        display_name: s.display_name,
        redirect_uri: redirectUriOf(s)
      })).pipe(Effect.withSpan("SsoFlow.status"))

      const start = Effect.fn("SsoFlow.start")(function*(input: { redirectTo?: string | null; redirectUri?: string | null }) {
        const s = yield* usable
        const redirectUri = redirectUriOf(s)
        const asked = input.redirectUri?.trim() ?? ""
        if (asked !== "" && asked !== redirectUri) {
          return yield* invalidField("redirect_uri", "INVALID_URL_FORMAT", "Not the redirect URI configured for SSO")
        }
        const codeVerifier = oidc.randomPKCECodeVerifier()
        const codeChallenge = yield* Effect.promise(() => oidc.calculatePKCECodeChallenge(codeVerifier))
        const nonce = oidc.randomNonce()
        const issuer = s.issuer ?? ""
        const state = yield* tokens.issue("sso_state", null, "10 minutes", {
          issuer,
          redirect_uri: redirectUri,
          redirect_to: safeRedirectTo(input.redirectTo),
          nonce,
          code_verifier: codeVerifier
        })
        const authorizationUrl = yield* party.authorizationUrl(s, { redirectUri, scope: scopeOf(s), state, nonce, codeChallenge })
        return { authorization_url: authorizationUrl, redirect_uri: redirectUri, state }
      })

      const complete = Effect.fn("SsoFlow.complete")(function*(input: { code: string; state: string }) {
        const s = yield* usable
        // Used up before anything else: a state works once, whatever happens next.
        const redeemed = yield* tokens.redeem("sso_state", input.state)
        const pending = redeemed === undefined ? Option.none() : decodePending(redeemed.data)
        // A state from before the operator switched providers is no good either.
        if (Option.isNone(pending) || pending.value.issuer !== s.issuer) return yield* badState()
        const { redirect_uri, nonce, code_verifier, redirect_to } = pending.value
        const claims = yield* party.exchange(s, {
          redirectUri: redirect_uri,
          code: input.code,
          state: input.state,
          nonce,
          codeVerifier: code_verifier
        })
        const email = claims.email?.trim().toLowerCase()
        if (email === undefined || !EMAIL.test(email) || email.length > 254) {
          return yield* invalidField("email", "SSO_PROVIDER_DID_NOT_RETURN_EMAIL", "The identity provider gave no usable email address")
        }
        if (!claims.emailVerified) {
          return yield* invalidField("email_verified", "INVALID_SSO_TOKEN", "The identity provider has not verified this email address")
        }
        const domain = normalizeDomain(email.slice(email.lastIndexOf("@") + 1))
        if (s.allowed_domains.length > 0 && (domain === undefined || !s.allowed_domains.includes(domain))) {
          return yield* invalidField("email", "EMAIL_DOMAIN_NOT_ALLOWED_FOR_SSO", "This email domain may not sign in with SSO here")
        }
        const userId = yield* accounts.resolve(
          { issuer: claims.issuer, subject: claims.subject, email, name: claims.name },
          s.auto_provision
        )
        return { userId, redirectTo: redirect_to }
      })

      return SsoFlow.of({ status, start, complete })
    })
  )
}
