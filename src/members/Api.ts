import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { GuildMemberResponse } from "../model/Guilds.ts"
import { Credentials, UserAuthentication, userOrBot } from "../http/Authentication.ts"
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
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.patch("update", "/guilds/:guild_id/members/:user_id", {
    params: GuildUserPath,
    payload: MemberUpdateRequest,
    success: GuildMemberResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.delete("kick", "/guilds/:guild_id/members/:user_id", { params: GuildUserPath, error: ApiErrors }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.delete("leave", "/users/@me/guilds/:guild_id", {
    params: GuildPath,
    query: { delete_messages: Schema.optional(Schema.String) },
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.post("search", "/guilds/:guild_id/members-search", {
    params: GuildPath,
    payload: MemberSearchRequest,
    success: MemberSearchResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot)
).middleware(UserAuthentication) {}
