import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { UserAuthentication } from "../http/Authentication.ts"
import { Snowflake } from "../model/Common.ts"
import { ApiErrors } from "../model/Errors.ts"
import { GuildCreateRequest, GuildMemberResponse, GuildResponse, GuildUpdateRequest } from "../model/Guilds.ts"

const guildPath = { guild_id: Snowflake }
const MemberLimit = Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1000 }))

export class GuildsApi extends HttpApiGroup.make("guilds").add(
  HttpApiEndpoint.post("create", "/guilds", { payload: GuildCreateRequest, success: GuildResponse, error: ApiErrors }),
  HttpApiEndpoint.get("get", "/guilds/:guild_id", { params: guildPath, success: GuildResponse, error: ApiErrors }),
  HttpApiEndpoint.patch("update", "/guilds/:guild_id", {
    params: guildPath,
    payload: GuildUpdateRequest,
    success: GuildResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.get("members", "/guilds/:guild_id/members", {
    params: guildPath,
    query: { limit: Schema.optional(MemberLimit), after: Schema.optional(Snowflake) },
    success: Schema.Array(GuildMemberResponse),
    error: ApiErrors
  }),
  HttpApiEndpoint.get("myMember", "/guilds/:guild_id/members/@me", {
    params: guildPath,
    success: GuildMemberResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.get("member", "/guilds/:guild_id/members/:user_id", {
    params: { ...guildPath, user_id: Snowflake },
    success: GuildMemberResponse,
    error: ApiErrors
  })
).middleware(UserAuthentication) {}
