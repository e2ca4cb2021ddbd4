import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { UserAuthentication } from "../http/Authentication.ts"
import { Snowflake } from "../model/Common.ts"
import { ApiErrors } from "../model/Errors.ts"
import { GuildBanCreateRequest, GuildBanResponse } from "../model/Bans.ts"

const guildPath = { guild_id: Snowflake }
const banPath = { guild_id: Snowflake, user_id: Snowflake }

export class BansApi extends HttpApiGroup.make("bans").add(
  HttpApiEndpoint.get("list", "/guilds/:guild_id/bans", {
    params: guildPath,
    success: Schema.Array(GuildBanResponse),
    error: ApiErrors
  }),
  HttpApiEndpoint.put("ban", "/guilds/:guild_id/bans/:user_id", {
    params: banPath,
    payload: GuildBanCreateRequest,
    error: ApiErrors
  }),
  HttpApiEndpoint.delete("unban", "/guilds/:guild_id/bans/:user_id", { params: banPath, error: ApiErrors })
).middleware(UserAuthentication) {}
