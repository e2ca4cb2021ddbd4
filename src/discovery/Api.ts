import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { UserAuthentication } from "../http/Authentication.ts"
import { Snowflake } from "../model/Common.ts"
import { ApiErrors } from "../model/Errors.ts"
import {
  DiscoveryApplicationPatchRequest,
  DiscoveryApplicationRequest,
  DiscoveryApplicationResponse,
  DiscoveryCategoryResponse,
  DiscoveryGuildListResponse,
  DiscoverySearchQuery,
  DiscoveryStatusResponse
} from "./Schemas.ts"

const guildPath = { guild_id: Snowflake }

/** The discovery listing, and a guild's application to it (part C, Discovery). */
export class DiscoveryApi extends HttpApiGroup.make("discovery").add(
  HttpApiEndpoint.get("categories", "/discovery/categories", {
    success: Schema.Array(DiscoveryCategoryResponse),
    error: ApiErrors
  }),
  HttpApiEndpoint.get("search", "/discovery/guilds", {
    query: DiscoverySearchQuery,
    success: DiscoveryGuildListResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("join", "/discovery/guilds/:guild_id/join", { params: guildPath, error: ApiErrors }),
  HttpApiEndpoint.get("status", "/guilds/:guild_id/discovery", {
    params: guildPath,
    success: DiscoveryStatusResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("apply", "/guilds/:guild_id/discovery", {
    params: guildPath,
    payload: DiscoveryApplicationRequest,
    success: DiscoveryApplicationResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.patch("amend", "/guilds/:guild_id/discovery", {
    params: guildPath,
    payload: DiscoveryApplicationPatchRequest,
    success: DiscoveryApplicationResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.delete("withdraw", "/guilds/:guild_id/discovery", { params: guildPath, error: ApiErrors })
).middleware(UserAuthentication) {}
