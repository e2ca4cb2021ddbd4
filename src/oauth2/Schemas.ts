import { Schema } from "effect"
import { BoundedText } from "../model/Common.ts"
import { GuildId, Snowflake } from "../model/Ids.ts"
import { UserPartialResponse } from "../model/Users.ts"

const NullableString = Schema.NullOr(Schema.String)
const Int32 = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2147483647 }))

/** An application's name, as the application list and the bot invite screen show it. */
const ApplicationName = BoundedText(1, 100)

/** An absolute URL an authorization may send the user back to. */
const RedirectUri = Schema.String.check(
  Schema.makeFilter((s: string) => (s.length <= 2048 && URL.canParse(s)) || "INVALID_URL_FORMAT: Not an absolute URL")
)
const RedirectUris = Schema.NullOr(Schema.Array(RedirectUri).check(Schema.isMaxLength(10)))

/** UsernameType: what a bot may be called (people's usernames follow src/auth/Usernames.ts). */
const BotUsername = Schema.String.check(
  Schema.isPattern(/^[a-zA-Z0-9_]{1,32}$/, { message: "STRING_LENGTH_INVALID: 1 to 32 letters, digits or _" })
)
const Discriminator = Schema.String.check(
  Schema.isPattern(/^\d{1,4}$/, { message: "DISCRIMINATOR_INVALID_FORMAT: A discriminator is 1 to 4 digits" })
)
/** A data URI or bare base64; the body limit (1 MiB) bounds it first, src/users/Images.ts checks the bytes. */
const Image = Schema.NullOr(Schema.String.check(Schema.isMaxLength(1_048_576)))

export const ApplicationCreateRequest = Schema.Struct({
  name: ApplicationName,
  redirect_uris: Schema.optional(RedirectUris),
  bot_public: Schema.optional(Schema.Boolean),
  bot_require_code_grant: Schema.optional(Schema.Boolean)
})
export type ApplicationCreateRequest = typeof ApplicationCreateRequest.Type

export const ApplicationUpdateRequest = Schema.Struct({
  name: Schema.optionalKey(ApplicationName),
  redirect_uris: Schema.optional(RedirectUris),
  bot_public: Schema.optionalKey(Schema.Boolean),
  bot_require_code_grant: Schema.optionalKey(Schema.Boolean)
})
export type ApplicationUpdateRequest = typeof ApplicationUpdateRequest.Type

export const BotProfileUpdateRequest = Schema.Struct({
  username: Schema.optionalKey(BotUsername),
  discriminator: Schema.optionalKey(Discriminator),
  avatar: Schema.optional(Image),
  banner: Schema.optional(Image),
  bio: Schema.optional(Schema.NullOr(BoundedText(0, 320))),
  bot_flags: Schema.optionalKey(Int32)
})
export type BotProfileUpdateRequest = typeof BotProfileUpdateRequest.Type

/** ApplicationBotResponse: the bot user of an application; `token` only right after it is made. */
export const ApplicationBotResponse = Schema.Struct({
  id: Schema.String,
  username: Schema.String,
  discriminator: Schema.String,
  avatar: Schema.optional(NullableString),
  banner: Schema.optional(NullableString),
  bio: NullableString,
  token: Schema.optional(Schema.String),
  mfa_enabled: Schema.optional(Schema.Boolean),
  authenticator_types: Schema.optional(Schema.Array(Schema.Int)),
  flags: Schema.Int
})
export type ApplicationBotResponse = typeof ApplicationBotResponse.Type

/** ApplicationResponse: what the owner sees; `client_secret` only right after it is made. */
export const ApplicationResponse = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  redirect_uris: Schema.Array(Schema.String),
  bot_public: Schema.Boolean,
  bot_require_code_grant: Schema.Boolean,
  client_secret: Schema.optional(Schema.String),
  bot: Schema.optional(ApplicationBotResponse)
})
export type ApplicationResponse = typeof ApplicationResponse.Type

export const ApplicationPublicResponse = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  icon: NullableString,
  description: NullableString,
  redirect_uris: Schema.Array(Schema.String),
  scopes: Schema.Array(Schema.String),
  bot_public: Schema.Boolean,
  bot: Schema.NullOr(ApplicationBotResponse)
})

/** ApplicationsMeResponse: a bot's own application (GET /applications/@me). */
export const ApplicationsMeResponse = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  icon: NullableString,
  description: NullableString,
  bot_public: Schema.Boolean,
  bot_require_code_grant: Schema.Boolean,
  flags: Schema.Int,
  verify_key: Schema.String,
  owner: UserPartialResponse,
  bot: Schema.optional(ApplicationBotResponse),
  redirect_uris: Schema.optional(Schema.Array(Schema.String))
})
export type ApplicationsMeResponse = typeof ApplicationsMeResponse.Type

export const BotProfileResponse = Schema.Struct({
  id: Schema.String,
  username: Schema.String,
  discriminator: Schema.String,
  avatar: NullableString,
  banner: NullableString,
  bio: NullableString,
  flags: Schema.Int
})

export const BotTokenResetResponse = Schema.Struct({ token: Schema.String, bot: ApplicationBotResponse })

export const AuthorizeConsentRequest = Schema.Struct({
  response_type: Schema.optional(Schema.String.check(Schema.isMaxLength(32))),
  client_id: Snowflake,
  redirect_uri: Schema.optional(Schema.String.check(Schema.isMaxLength(2048))),
  scope: Schema.String.check(Schema.isMaxLength(1024)),
  state: Schema.optional(Schema.String.check(Schema.isMaxLength(1024))),
  permissions: Schema.optional(Schema.String.check(
    Schema.isPattern(/^[0-9]{1,20}$/, { message: "INVALID_PERMISSIONS_INTEGER: Permissions are a decimal integer" })
  )),
  guild_id: Schema.optional(GuildId),
  channel_id: Schema.optional(Snowflake),
  code_challenge: Schema.optional(Schema.String.check(Schema.isMaxLength(128))),
  code_challenge_method: Schema.optional(Schema.Literals(["S256", "plain"]))
})
export type AuthorizeConsentRequest = typeof AuthorizeConsentRequest.Type

export const OAuth2ConsentResponse = Schema.Struct({ redirect_to: Schema.String })

/** OAuth2AuthorizationResponse: an application holding live tokens of the user. */
export const OAuth2AuthorizationResponse = Schema.Struct({
  application: Schema.Struct({
    id: Schema.String,
    name: Schema.String,
    icon: NullableString,
    description: NullableString,
    bot_public: Schema.Boolean
  }),
  scopes: Schema.Array(Schema.String),
  authorized_at: Schema.String
})
