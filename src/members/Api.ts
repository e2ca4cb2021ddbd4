import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { GuildMemberResponse } from "../model/Guilds.ts"
import { UserAuthentication } from "../http/Authentication.ts"
import { ApiErrors } from "../model/Errors.ts"
import { MemberSearchRequest, MemberSearchResponse, MemberUpdateRequest } from "../model/Members.ts"
import { GuildPath, GuildUserPath } from "../http/Paths.ts"


/** Guild members: updates, timeouts, kicks, leaving, search. */
export class MembersApi extends HttpApiGroup.make("members").add(
  HttpApiEndpoint.patch("updateMine", "/guilds/:guild_id/members/@me", {
    params: GuildPath,
    payload: MemberUpdateRequest,
    success: GuildMemberResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.patch("update", "/guilds/:guild_id/members/:user_id", {
    params: GuildUserPath,
    payload: MemberUpdateRequest,
    success: GuildMemberResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.delete("kick", "/guilds/:guild_id/members/:user_id", { params: GuildUserPath, error: ApiErrors }),
  HttpApiEndpoint.delete("leave", "/users/@me/guilds/:guild_id", {
    params: GuildPath,
    query: { delete_messages: Schema.optional(Schema.String) },
    error: ApiErrors
  }),
  HttpApiEndpoint.post("search", "/guilds/:guild_id/members-search", {
    params: GuildPath,
    payload: MemberSearchRequest,
    success: MemberSearchResponse,
    error: ApiErrors
  })
).middleware(UserAuthentication) {}
