import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userBotOrBearer, userOrBot } from "../http/Authentication.ts"
import { Snowflake } from "../model/Ids.ts"
import { ApiErrors } from "../model/Errors.ts"
import { GuildCreateRequest, GuildMemberResponse, GuildResponse, GuildUpdateRequest } from "../model/Guilds.ts"
import { GuildPath, GuildUserPath } from "../http/Paths.ts"

const MemberLimit = Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1000 }))

export class GuildsApi extends HttpApiGroup.make("guilds").add(
  HttpApiEndpoint.post("create", "/guilds", { payload: GuildCreateRequest, success: GuildResponse, error: ApiErrors }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.get("get", "/guilds/:guild_id", { params: GuildPath, success: GuildResponse, error: ApiErrors }).annotate(Credentials, userBotOrBearer("guilds")),
  HttpApiEndpoint.patch("update", "/guilds/:guild_id", {
    params: GuildPath,
    payload: GuildUpdateRequest,
    success: GuildResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.get("members", "/guilds/:guild_id/members", {
    params: GuildPath,
    query: { limit: Schema.optional(MemberLimit), after: Schema.optional(Snowflake) },
    success: Schema.Array(GuildMemberResponse),
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.get("myMember", "/guilds/:guild_id/members/@me", {
    params: GuildPath,
    success: GuildMemberResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.get("member", "/guilds/:guild_id/members/:user_id", {
    params: GuildUserPath,
    success: GuildMemberResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot)
).middleware(UserAuthentication) {}
