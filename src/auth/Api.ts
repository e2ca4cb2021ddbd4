import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { UserAuthentication } from "../http/Authentication.ts"
import { ApiErrors } from "../http/Errors.ts"

const Email = Schema.String.check(
  Schema.isMaxLength(254, { message: "EMAIL_LENGTH_INVALID: Must be at most 254 in length" }),
  Schema.isPattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: "INVALID_EMAIL_FORMAT: Not a valid email address" })
)
/** Length is checked by the service, which answers PASSWORD_LENGTH_INVALID; this only caps what argon2 is fed. */
const Password = Schema.String.check(Schema.isMaxLength(1024))

export const RegisterRequest = Schema.Struct({
  email: Schema.optional(Email),
  username: Schema.optional(Schema.String.check(Schema.isMaxLength(64))),
  global_name: Schema.optional(Schema.String.check(Schema.isMaxLength(64))),
  password: Schema.optional(Password),
  date_of_birth: Schema.optional(Schema.String.check(Schema.isMaxLength(32))),
  consent: Schema.optional(Schema.Boolean),
  invite_code: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(64)))),
  registration_url_code: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(64)))),
  theme: Schema.optional(Schema.Literals(["dark", "dark_legacy", "coal", "light", "system"]))
})
export type RegisterRequest = typeof RegisterRequest.Type

export const LoginRequest = Schema.Struct({
  email: Email,
  password: Password,
  invite_code: Schema.optional(Schema.NullOr(Schema.String))
})

export const AuthTokenWithUserIdResponse = Schema.Struct({ token: Schema.String, user_id: Schema.String })

export class AuthApi extends HttpApiGroup.make("auth").add(
  HttpApiEndpoint.post("register", "/auth/register", {
    payload: RegisterRequest,
    success: AuthTokenWithUserIdResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("login", "/auth/login", {
    payload: LoginRequest,
    success: AuthTokenWithUserIdResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("logout", "/auth/logout", { error: ApiErrors }).middleware(UserAuthentication)
) {}
