import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOrBot } from "../http/Authentication.ts"
import { ApiErrors } from "../model/Errors.ts"
import { GuildBanCreateRequest, GuildBanResponse } from "../model/Bans.ts"
import { GuildPath, GuildUserPath } from "../http/Paths.ts"


export class BansApi extends HttpApiGroup.make("bans").add(
  HttpApiEndpoint.get("list", "/guilds/:guild_id/bans", {
    params: GuildPath,
    success: Schema.Array(GuildBanResponse),
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.put("ban", "/guilds/:guild_id/bans/:user_id", {
    params: GuildUserPath,
    payload: GuildBanCreateRequest,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.delete("unban", "/guilds/:guild_id/bans/:user_id", { params: GuildUserPath, error: ApiErrors }).annotate(Credentials, userOrBot)
).middleware(UserAuthentication) {}
