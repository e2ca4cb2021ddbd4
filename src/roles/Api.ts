import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { GuildRoleResponse } from "../model/Guilds.ts"
import { Credentials, UserAuthentication, userBotOrBearer, userOrBot } from "../http/Authentication.ts"
import { ApiErrors } from "../model/Errors.ts"
import {
  GuildRoleCreateRequest,
  GuildRoleHoistPositionsRequest,
  GuildRolePositionsRequest,
  GuildRoleUpdateRequest
} from "../model/Roles.ts"
import { GuildPath, MemberRolePath, RolePath } from "../http/Paths.ts"

/** `X-Audit-Log-Reason`: the reason the audit entry records. */
export const ReasonHeader = { "x-audit-log-reason": Schema.optional(Schema.String) }

/** A guild's roles, their order and who holds them. */
export class RolesApi extends HttpApiGroup.make("roles").add(
  HttpApiEndpoint.get("list", "/guilds/:guild_id/roles", {
    params: GuildPath,
    success: Schema.Array(GuildRoleResponse),
    error: ApiErrors
  }).annotate(Credentials, userBotOrBearer("guilds")),
  HttpApiEndpoint.post("create", "/guilds/:guild_id/roles", {
    params: GuildPath,
    headers: ReasonHeader,
    payload: GuildRoleCreateRequest,
    success: GuildRoleResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.patch("positions", "/guilds/:guild_id/roles", {
    params: GuildPath,
    headers: ReasonHeader,
    payload: GuildRolePositionsRequest,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.patch("hoistPositions", "/guilds/:guild_id/roles/hoist-positions", {
    params: GuildPath,
    headers: ReasonHeader,
    payload: GuildRoleHoistPositionsRequest,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.delete("resetHoistPositions", "/guilds/:guild_id/roles/hoist-positions", {
    params: GuildPath,
    headers: ReasonHeader,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.patch("update", "/guilds/:guild_id/roles/:role_id", {
    params: RolePath,
    headers: ReasonHeader,
    payload: GuildRoleUpdateRequest,
    success: GuildRoleResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.delete("delete", "/guilds/:guild_id/roles/:role_id", {
    params: RolePath,
    headers: ReasonHeader,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.put("addMemberRole", "/guilds/:guild_id/members/:user_id/roles/:role_id", {
    params: MemberRolePath,
    headers: ReasonHeader,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.delete("removeMemberRole", "/guilds/:guild_id/members/:user_id/roles/:role_id", {
    params: MemberRolePath,
    headers: ReasonHeader,
    error: ApiErrors
  }).annotate(Credentials, userOrBot)
).middleware(UserAuthentication) {}
