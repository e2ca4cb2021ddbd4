import { Schema } from "effect"
import { HttpApiSchema } from "effect/http-api"
import { Snowflake } from "../model/Ids.ts"

const Secret = Schema.String.check(Schema.isMaxLength(512))
const Client = {
  client_id: Schema.optional(Snowflake),
  client_secret: Schema.optional(Secret)
}

export const AuthorizationCodeTokenRequest = Schema.Struct({
  grant_type: Schema.Literal("authorization_code"),
  code: Secret,
  redirect_uri: Schema.String.check(Schema.isMaxLength(2048)),
  code_verifier: Schema.optional(Secret),
  ...Client
})

export const RefreshTokenTokenRequest = Schema.Struct({
  grant_type: Schema.Literal("refresh_token"),
  refresh_token: Secret,
  ...Client
})

const TokenRequest = Schema.Union([AuthorizationCodeTokenRequest, RefreshTokenTokenRequest])
const RevokeRequest = Schema.Struct({
  token: Secret,
  token_type_hint: Schema.optional(Schema.Literals(["access_token", "refresh_token"])),
  ...Client
})
const IntrospectRequest = Schema.Struct({ token: Secret, ...Client })

/** A body OAuth2 clients send as a form (RFC 6749), as JSON, or as multipart (the reference). */
const formOrJson = <S extends Schema.Top>(schema: S) =>
  [schema, schema.pipe(HttpApiSchema.asFormUrlEncoded()), schema.pipe(HttpApiSchema.asMultipart())] as const

export const TokenPayload = formOrJson(TokenRequest)
export const RevokePayload = formOrJson(RevokeRequest)
export const IntrospectPayload = formOrJson(IntrospectRequest)

export const OAuth2TokenResponse = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.String,
  expires_in: Schema.Int,
  refresh_token: Schema.String,
  scope: Schema.String
})

export const OAuth2IntrospectResponse = Schema.Struct({
  active: Schema.Boolean,
  scope: Schema.optional(Schema.String),
  client_id: Schema.optional(Schema.String),
  username: Schema.optional(Schema.String),
  token_type: Schema.optional(Schema.String),
  exp: Schema.optional(Schema.Int),
  iat: Schema.optional(Schema.Int),
  sub: Schema.optional(Schema.String)
})

const ApplicationSummary = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  icon: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  bot_public: Schema.Boolean,
  bot_require_code_grant: Schema.Boolean,
  flags: Schema.Int
})

/** The user as an OAuth2 grant shows it: `email` and `verified` only with the `email` scope. */
const OAuth2User = Schema.Struct({
  id: Schema.String,
  username: Schema.String,
  discriminator: Schema.String,
  global_name: Schema.NullOr(Schema.String),
  avatar: Schema.NullOr(Schema.String),
  avatar_color: Schema.NullOr(Schema.Int),
  bot: Schema.optional(Schema.Boolean),
  flags: Schema.Int,
  email: Schema.optional(Schema.NullOr(Schema.String)),
  verified: Schema.optional(Schema.NullOr(Schema.Boolean))
})

export const OAuth2MeResponse = Schema.Struct({
  application: ApplicationSummary,
  scopes: Schema.Array(Schema.String),
  expires: Schema.String,
  user: Schema.optional(OAuth2User)
})

export const OAuth2UserInfoResponse = Schema.Struct({
  sub: Schema.String,
  id: Schema.String,
  username: Schema.String,
  discriminator: Schema.String,
  global_name: Schema.NullOr(Schema.String),
  avatar: Schema.NullOr(Schema.String),
  email: Schema.optional(Schema.NullOr(Schema.String)),
  verified: Schema.optional(Schema.NullOr(Schema.Boolean)),
  flags: Schema.optional(Schema.Int)
})
