import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { ChannelResponse } from "../model/Guilds.ts"
import { Credentials, UserAuthentication, userOnly, userOrBot } from "../http/Authentication.ts"
import { ApiErrors } from "../model/Errors.ts"
import {
  ChannelCreateRequest,
  ChannelPatchRequest,
  ChannelPositionUpdateRequest,
  PermissionOverwriteCreateRequest,
  RtcRegionResponse
} from "../model/Channels.ts"
import { ChannelPath, GuildPath, OverwritePath } from "../http/Paths.ts"

/** `X-Audit-Log-Reason`: the reason the audit entry records (URL-encoded by clients). */
const ReasonHeader = { "x-audit-log-reason": Schema.optional(Schema.String) }

/** A guild's channels and their permission overwrites. */
export class ChannelsApi extends HttpApiGroup.make("channels").add(
  HttpApiEndpoint.get("list", "/guilds/:guild_id/channels", {
    params: GuildPath,
    success: Schema.Array(ChannelResponse),
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.post("create", "/guilds/:guild_id/channels", {
    params: GuildPath,
    headers: ReasonHeader,
    payload: ChannelCreateRequest,
    success: ChannelResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.patch("positions", "/guilds/:guild_id/channels", {
    params: GuildPath,
    headers: ReasonHeader,
    payload: ChannelPositionUpdateRequest,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.get("get", "/channels/:channel_id", { params: ChannelPath, success: ChannelResponse, error: ApiErrors }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.patch("update", "/channels/:channel_id", {
    params: ChannelPath,
    headers: ReasonHeader,
    payload: ChannelPatchRequest,
    success: ChannelResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.delete("delete", "/channels/:channel_id", {
    params: ChannelPath,
    headers: ReasonHeader,
    query: { silent: Schema.optional(Schema.String), delete_messages: Schema.optional(Schema.String) },
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.put("putOverwrite", "/channels/:channel_id/permissions/:overwrite_id", {
    params: OverwritePath,
    headers: ReasonHeader,
    payload: PermissionOverwriteCreateRequest,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.delete("deleteOverwrite", "/channels/:channel_id/permissions/:overwrite_id", {
    params: OverwritePath,
    headers: ReasonHeader,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.get("rtcRegions", "/channels/:channel_id/rtc-regions", {
    params: ChannelPath,
    success: Schema.Array(RtcRegionResponse),
    error: ApiErrors
  }).annotate(Credentials, userOnly)
).middleware(UserAuthentication) {}
