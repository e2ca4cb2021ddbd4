import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOnly, userOrBot } from "../http/Authentication.ts"
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
import { GuildPath } from "../http/Paths.ts"


/** The discovery listing, and a guild's application to it (part C, Discovery). */
export class DiscoveryApi extends HttpApiGroup.make("discovery").add(
  HttpApiEndpoint.get("categories", "/discovery/categories", {
    success: Schema.Array(DiscoveryCategoryResponse),
    error: ApiErrors
  }).annotate(Credentials, userOnly),
  HttpApiEndpoint.get("search", "/discovery/guilds", {
    query: DiscoverySearchQuery,
    success: DiscoveryGuildListResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly),
  HttpApiEndpoint.post("join", "/discovery/guilds/:guild_id/join", { params: GuildPath, error: ApiErrors }).annotate(Credentials, userOnly),
  HttpApiEndpoint.get("status", "/guilds/:guild_id/discovery", {
    params: GuildPath,
    success: DiscoveryStatusResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.post("apply", "/guilds/:guild_id/discovery", {
    params: GuildPath,
    payload: DiscoveryApplicationRequest,
    success: DiscoveryApplicationResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.patch("amend", "/guilds/:guild_id/discovery", {
    params: GuildPath,
    payload: DiscoveryApplicationPatchRequest,
    success: DiscoveryApplicationResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.delete("withdraw", "/guilds/:guild_id/discovery", { params: GuildPath, error: ApiErrors }).annotate(Credentials, userOrBot)
).middleware(UserAuthentication) {}
