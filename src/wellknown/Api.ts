import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { ApiErrors } from "../model/Errors.ts"

const Str = Schema.String
const NullStr = Schema.NullOr(Schema.String)

/** reference/schemas.md, WellKnownServiceResponse. */
export const WellKnownServiceResponse = Schema.Struct({
  api_code_version: Schema.Int,
  endpoints: Schema.Struct({
    api: Str,
    api_client: Str,
    api_public: Str,
    gateway: Str,
    media: Str,
    static_cdn: Str,
    marketing: Str,
    admin: Str,
    invite: Str,
    gift: Str,
    webapp: Str
  }),
  captcha: Schema.Struct({ provider: Str, hcaptcha_site_key: NullStr, turnstile_site_key: NullStr }),
  features: Schema.Struct({
    voice_enabled: Schema.Boolean,
    payments_enabled: Schema.Boolean,
    self_hosted: Schema.Boolean,
    presigned_attachment_uploads: Schema.Boolean,
    emails_enabled: Schema.Boolean
  }),
  gif: Schema.Struct({ provider: Str, display_name: Str, attribution_required: Schema.Boolean }),
  sso: Schema.Struct({ enabled: Schema.Boolean, enforced: Schema.Boolean, display_name: NullStr, redirect_uri: Str }),
  registration: Schema.Struct({ mode: Schema.Literals(["open", "approval", "closed"]), admin_registration_urls_enabled: Schema.Boolean }),
  community: Schema.Struct({ single_community: Schema.Boolean, single_community_guild_id: NullStr, direct_messages_disabled: Schema.Boolean }),
  services: Schema.Struct({ gif_enabled: Schema.Boolean, youtube_enabled: Schema.Boolean, social_enabled: Schema.Boolean }),
  limits: Schema.Struct({
    version: Schema.Literal(2),
    traitDefinitions: Schema.Array(Str),
    rules: Schema.Array(Schema.Struct({
      id: Str,
      filters: Schema.optional(Schema.Struct({
        traits: Schema.optional(Schema.Array(Str)),
        guildFeatures: Schema.optional(Schema.Array(Str))
      })),
      overrides: Schema.Record(Str, Schema.Number)
    })),
    defaultsHash: Str
  }),
  push: Schema.Struct({ public_vapid_key: NullStr }),
  app_public: Schema.Struct({
    branding: Schema.Struct({
      product_name: Str,
      icon_url: NullStr,
      symbol_url: NullStr,
      logo_url: NullStr,
      wordmark_url: NullStr,
      favicon_url: NullStr,
      theme_color: NullStr
    }),
    setup: Schema.Struct({ configured: Schema.Boolean, admin_url: NullStr }),
    legal: Schema.Struct({ terms_url: NullStr, privacy_url: NullStr }),
    registration: Schema.Struct({ collect_date_of_birth: Schema.Boolean })
  })
})

/** Part C: how a client finds this deployment; no credentials. */
export class WellKnownApi extends HttpApiGroup.make("wellKnown").add(
  HttpApiEndpoint.get("service", "/.well-known/service", { success: WellKnownServiceResponse, error: ApiErrors })
) {}
