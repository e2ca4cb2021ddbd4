import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { GuildResponse } from "../guilds/Schemas.ts"
import { UserAuthentication } from "../http/Authentication.ts"
import { Snowflake } from "../http/Common.ts"
import { ApiErrors } from "../http/Errors.ts"
import { UserPrivateResponse } from "./Schemas.ts"

const Limit = Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 200 }))

export class UsersApi extends HttpApiGroup.make("users").add(
  HttpApiEndpoint.get("me", "/users/@me", { success: UserPrivateResponse, error: ApiErrors }),
  HttpApiEndpoint.get("myGuilds", "/users/@me/guilds", {
    query: {
      before: Schema.optional(Snowflake),
      after: Schema.optional(Snowflake),
      limit: Schema.optional(Limit),
      with_counts: Schema.optional(Schema.String)
    },
    success: Schema.Array(GuildResponse),
    error: ApiErrors
  })
).middleware(UserAuthentication) {}
