import { HttpApi, OpenApi } from "effect/http-api"
import { AccountApi } from "../account/Api.ts"
import { AdminApi } from "../admin/Api.ts"
import { AuthApi } from "../auth/Api.ts"
import { GuildsApi } from "../guilds/Api.ts"
import { HealthApi } from "../health/Api.ts"
import { MfaApi } from "../mfa/Api.ts"
import { SessionsApi } from "../sessions/Api.ts"
import { SsoAdminApi, SsoApi } from "../sso/Api.ts"
import { UsersApi } from "../users/Api.ts"

/** The whole HTTP API: one definition for routing, validation, OpenAPI and clients. */
export class Api extends HttpApi.make("guildhall")
  .add(HealthApi)
  .add(AuthApi)
  .add(UsersApi)
  .add(MfaApi)
  .add(SsoApi)
  .add(SsoAdminApi)
  .add(AccountApi)
  .add(SessionsApi)
  .add(GuildsApi)
  .add(AdminApi)
  .annotateMerge(OpenApi.annotations({ title: "Guildhall API", version: "1" }))
{}
