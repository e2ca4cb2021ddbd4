import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AdminAuthentication } from "../http/Authentication.ts"
import { BoundedText } from "../model/Common.ts"
import { ApiErrors } from "../model/Errors.ts"
import { UserPartialResponse } from "../model/Users.ts"

/** A bounded string that may also be sent as null (null clears a setting). */
const NullableText = (max: number) => Schema.optional(Schema.NullOr(BoundedText(0, max)))

export const SsoStatusResponse = Schema.Struct({
  enabled: Schema.Boolean,
  enforced: Schema.Boolean,
  display_name: Schema.NullOr(Schema.String),
  redirect_uri: Schema.String
})

export const SsoStartRequest = Schema.Struct({
  /** Where the client goes after signing in: a path of this site, else it is dropped. */
  redirect_to: NullableText(2048),
  /** Must be the configured redirect URI when given (clients echo it back). */
  redirect_uri: NullableText(2048)
})

export const SsoStartResponse = Schema.Struct({
  authorization_url: Schema.String,
  redirect_uri: Schema.String,
  state: Schema.String
})

export const SsoCompleteRequest = Schema.Struct({
  code: BoundedText(1, 4096),
  state: BoundedText(1, 512)
})

export const SsoCompleteResponse = Schema.Struct({
  token: Schema.String,
  user_id: Schema.String,
  user: UserPartialResponse,
  redirect_to: Schema.String
})

/** The SSO section of the instance configuration; the client secret never leaves the server. */
export const SsoConfigResponse = Schema.Struct({
  enabled: Schema.Boolean,
  enforced: Schema.Boolean,
  display_name: Schema.NullOr(Schema.String),
  issuer: Schema.NullOr(Schema.String),
  authorization_url: Schema.NullOr(Schema.String),
  token_url: Schema.NullOr(Schema.String),
  userinfo_url: Schema.NullOr(Schema.String),
  jwks_url: Schema.NullOr(Schema.String),
  client_id: Schema.NullOr(Schema.String),
  client_secret_set: Schema.Boolean,
  scope: Schema.NullOr(Schema.String),
  allowed_domains: Schema.Array(Schema.String),
  auto_provision: Schema.Boolean,
  redirect_uri: Schema.NullOr(Schema.String)
})
export type SsoConfigResponse = typeof SsoConfigResponse.Type

/** Absent fields stay as they are; null clears; an empty client_secret leaves the stored one. */
export const SsoConfigUpdate = Schema.Struct({
  enabled: Schema.optional(Schema.Boolean),
  enforced: Schema.optional(Schema.Boolean),
  display_name: NullableText(100),
  issuer: NullableText(2048),
  authorization_url: NullableText(2048),
  token_url: NullableText(2048),
  userinfo_url: NullableText(2048),
  jwks_url: NullableText(2048),
  client_id: NullableText(255),
  client_secret: NullableText(1024),
  scope: NullableText(512),
  allowed_domains: Schema.optional(Schema.Array(BoundedText(0, 253)).check(Schema.isMaxLength(100))),
  auto_provision: Schema.optional(Schema.Boolean),
  redirect_uri: NullableText(2048)
})
export type SsoConfigUpdate = typeof SsoConfigUpdate.Type

export const InstanceConfigResponse = Schema.Struct({ sso: SsoConfigResponse })
export const InstanceConfigUpdateRequest = Schema.Struct({ sso: Schema.optional(SsoConfigUpdate) })

export class SsoApi extends HttpApiGroup.make("sso").add(
  HttpApiEndpoint.get("status", "/auth/sso/status", { success: SsoStatusResponse, error: ApiErrors }),
  HttpApiEndpoint.post("start", "/auth/sso/start", {
    // Clients may post no body at all (an empty body decodes as null).
    payload: [SsoStartRequest, Schema.Null],
    success: SsoStartResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("complete", "/auth/sso/complete", {
    payload: SsoCompleteRequest,
    success: SsoCompleteResponse,
    error: ApiErrors
  })
) {}

/** Where operators set SSO up (part B: /admin/instance-config/get and /update). */
export class SsoAdminApi extends HttpApiGroup.make("ssoAdmin").add(
  HttpApiEndpoint.post("getInstanceConfig", "/admin/instance-config/get", {
    success: InstanceConfigResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("updateInstanceConfig", "/admin/instance-config/update", {
    payload: InstanceConfigUpdateRequest,
    success: InstanceConfigResponse,
    error: ApiErrors
  })
).middleware(AdminAuthentication) {}
