import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { UserAuthentication } from "../http/Authentication.ts"
import { ApiErrors } from "../model/Errors.ts"
import { GuildBanCreateRequest, GuildBanResponse } from "../model/Bans.ts"
import { GuildPath, GuildUserPath } from "../http/Paths.ts"


export class BansApi extends HttpApiGroup.make("bans").add(
  HttpApiEndpoint.get("list", "/guilds/:guild_id/bans", {
    params: GuildPath,
    success: Schema.Array(GuildBanResponse),
    error: ApiErrors
  }),
  HttpApiEndpoint.put("ban", "/guilds/:guild_id/bans/:user_id", {
    params: GuildUserPath,
    payload: GuildBanCreateRequest,
    error: ApiErrors
  }),
  HttpApiEndpoint.delete("unban", "/guilds/:guild_id/bans/:user_id", { params: GuildUserPath, error: ApiErrors })
).middleware(UserAuthentication) {}
