import { HttpApi, OpenApi } from "effect/http-api"
import { AccountApi } from "../account/Api.ts"
import { AccountLifecycleApi } from "../account/LifecycleApi.ts"
import { AdminApi } from "../admin/Api.ts"
import { AuthApi } from "../auth/Api.ts"
import { GuildsApi } from "../guilds/Api.ts"
import { HealthApi } from "../health/Api.ts"
import { MfaApi } from "../mfa/Api.ts"
import { PhoneApi } from "../phone/Api.ts"
import { PushApi } from "../push/Api.ts"
import { RelationshipsApi } from "../relationships/Api.ts"
import { SessionsApi } from "../sessions/Api.ts"
import { SsoAdminApi, SsoApi } from "../sso/Api.ts"
import { UsersApi } from "../users/Api.ts"
import { NotesApi } from "../notes/Api.ts"
import { SettingsApi } from "../settings/Api.ts"

/** The whole HTTP API: one definition for routing, validation, OpenAPI and clients. */
export class Api extends HttpApi.make("guildhall")
  .add(HealthApi)
  .add(AuthApi)
  .add(UsersApi)
  .add(SettingsApi)
  .add(NotesApi)
  .add(MfaApi)
  .add(PhoneApi)
  .add(RelationshipsApi)
  .add(PushApi)
  .add(SsoApi)
  .add(SsoAdminApi)
  .add(AccountApi)
  .add(AccountLifecycleApi)
  .add(SessionsApi)
  .add(GuildsApi)
  .add(AdminApi)
  .annotateMerge(OpenApi.annotations({ title: "Guildhall API", version: "1" }))
{}
