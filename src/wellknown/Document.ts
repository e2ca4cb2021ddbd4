import { Option } from "effect"
import { createHash } from "node:crypto"
import { DEFAULT_LIMITS, type LimitConfig } from "../model/Limits.ts"
import type { Settings } from "../platform/Config.ts"
import type { SsoSettingsRow } from "../sso/SettingsRules.ts"

/** Bumped when a change of the API needs clients to know (the production service's `api_code_version`). */
export const API_CODE_VERSION = 1

/** The gateway's socket path (src/gateway/Api.ts), repeated so this document needs nothing of the gateway's HTTP group. */
const SOCKET_PATH = "/gateway/socket"

/** The defaults' fingerprint: a client caching limits knows to refetch when the server's defaults change. */
export const defaultsHash = createHash("sha256").update(JSON.stringify(DEFAULT_LIMITS)).digest("hex").slice(0, 16)

/** `GATEWAY_URL`, else the socket on the public URL's host, ws or wss as the public URL is http or https. */
const gatewayOf = (settings: Settings): string =>
  Option.getOrElse(settings.gatewayUrl, () => {
    const url = new URL(settings.publicUrl)
    return `${url.protocol === "https:" ? "wss:" : "ws:"}//${url.host}${SOCKET_PATH}`
  })

/**
 * GET /.well-known/service (WellKnownServiceResponse): where this deployment's
 * API, gateway and media are and what it offers, from its settings, its SSO
 * settings, its limits and whether a media server is there to join. One origin serves the API, the web pages and the
 * media (uploads are served at the public URL, whatever store holds them).
 */
export const serviceDocument = (settings: Settings, sso: SsoSettingsRow, limits: LimitConfig, voiceEnabled: boolean) => {
  const origin = settings.publicUrl.replace(/\/$/, "")
  const gifEnabled = Option.isSome(settings.gifa.apiKey) || Option.isSome(settings.gifb.apiKey)
  return {
    api_code_version: API_CODE_VERSION,
    endpoints: {
      api: origin,
      api_client: origin,
      api_public: origin,
      gateway: gatewayOf(settings),
      media: origin,
      static_cdn: origin,
      marketing: origin,
      admin: `${origin}/admin/console`,
      invite: `${origin}/invite`,
      gift: `${origin}/gift`,
      webapp: origin
    },
    captcha: { provider: "none", hcaptcha_site_key: null, turnstile_site_key: null },
    features: {
      voice_enabled: voiceEnabled,
      payments_enabled: false,
      self_hosted: true,
      presigned_attachment_uploads: false,
      emails_enabled: Option.isSome(settings.smtpUrl)
    },
    gif: {
      provider: Option.isSome(settings.gifa.apiKey) ? "gifa" : Option.isSome(settings.gifb.apiKey) ? "gifb" : "none",
      display_name: Option.isSome(settings.gifa.apiKey) ? "Tenor" : Option.isSome(settings.gifb.apiKey) ? "Klipy" : "None",
      attribution_required: gifEnabled
    },
    sso: {
      enabled: sso.enabled,
      enforced: sso.enforced,
      display_name: sso.display_name,
      redirect_uri: sso.redirect_uri ?? `${origin}/auth/sso/callback`
    },
    registration: { mode: "open" as const, admin_registration_urls_enabled: false },
    community: { single_community: false, single_community_guild_id: null, direct_messages_disabled: false },
    services: { gif_enabled: gifEnabled, youtube_enabled: false, social_enabled: true },
    limits: {
      version: 2 as const,
      traitDefinitions: [...(limits.traitDefinitions ?? [])],
      rules: limits.rules.map((rule) => ({
        id: rule.id,
        ...(rule.filters === undefined ? {} : { filters: rule.filters }),
        overrides: rule.limits
      })),
      defaultsHash
    },
    push: { public_vapid_key: null },
    app_public: {
      branding: {
        product_name: "Guildhall",
        icon_url: null,
        symbol_url: null,
        logo_url: null,
        wordmark_url: null,
        favicon_url: null,
        theme_color: null
      },
      setup: { configured: true, admin_url: `${origin}/admin/console` },
      legal: { terms_url: null, privacy_url: null },
      registration: { collect_date_of_birth: true }
    }
  }
}
