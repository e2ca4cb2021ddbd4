import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOnly, userOrBot } from "../http/Authentication.ts"
import { ApiErrors } from "../model/Errors.ts"
import { PackInviteResponse } from "../packs/Schemas.ts"
import { ChannelInviteCreateRequest, GuildInviteMetadataResponse, GuildInviteResponse } from "../model/Invites.ts"
import { ChannelPath, GuildPath } from "../http/Paths.ts"

/** An invite code or vanity URL as it may appear in a path. */
const InviteCode = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9-]{1,32}$/, { message: "INVALID_FORMAT: Not an invite code" })
)
const codePath = { invite_code: InviteCode }
/** A code names a guild invite (or vanity URL) or a pack invite. */
const InviteResponse = Schema.Union([GuildInviteResponse, PackInviteResponse])

export class InvitesApi extends HttpApiGroup.make("invites").add(
  HttpApiEndpoint.get("channelList", "/channels/:channel_id/invites", {
    params: ChannelPath,
    success: Schema.Array(GuildInviteMetadataResponse),
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.post("create", "/channels/:channel_id/invites", {
    params: ChannelPath,
    payload: ChannelInviteCreateRequest,
    success: GuildInviteMetadataResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.get("guildList", "/guilds/:guild_id/invites", {
    params: GuildPath,
    success: Schema.Array(GuildInviteMetadataResponse),
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.post("join", "/invites/:invite_code", { params: codePath, success: InviteResponse, error: ApiErrors }).annotate(Credentials, userOnly),
  HttpApiEndpoint.delete("delete", "/invites/:invite_code", { params: codePath, error: ApiErrors }).annotate(Credentials, userOrBot)
).middleware(UserAuthentication) {}

/** GET /invites/{code} needs no session: it is what a link preview shows. */
export class PublicInvitesApi extends HttpApiGroup.make("publicInvites").add(
  HttpApiEndpoint.get("get", "/invites/:invite_code", {
    params: codePath,
    query: { with_counts: Schema.optional(Schema.Literals(["true", "false"])) },
    success: InviteResponse,
    error: ApiErrors
  })
) {}
