import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { emojiEndpoints, stickerEndpoints } from "../expressions/Endpoints.ts"
import { Credentials, UserAuthentication, userOnly, userOrBot } from "../http/Authentication.ts"
import { Snowflake } from "../model/Ids.ts"
import { ApiErrors } from "../model/Errors.ts"
import {
  PackCreateRequest,
  PackDashboardResponse,
  PackInviteCreateRequest,
  PackInviteMetadataResponse,
  PackSummaryResponse
} from "./Schemas.ts"

const packPath = { pack_id: Snowflake }

/** Emoji and sticker packs: collections a user creates and others install. */
export class PacksApi extends HttpApiGroup.make("packs").add(
  HttpApiEndpoint.get("dashboard", "/packs", { success: PackDashboardResponse, error: ApiErrors }).annotate(Credentials, userOnly),
  HttpApiEndpoint.post("create", "/packs/:pack_type", {
    params: { pack_type: Schema.String },
    payload: PackCreateRequest,
    success: PackSummaryResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly),
  HttpApiEndpoint.post("install", "/packs/:pack_id/install", { params: packPath, error: ApiErrors }).annotate(Credentials, userOnly),
  HttpApiEndpoint.get("invites", "/packs/:pack_id/invites", {
    params: packPath,
    success: Schema.Array(PackInviteMetadataResponse),
    error: ApiErrors
  }).annotate(Credentials, userOnly),
  HttpApiEndpoint.post("createInvite", "/packs/:pack_id/invites", {
    params: packPath,
    payload: PackInviteCreateRequest,
    success: PackInviteMetadataResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly),
  ...emojiEndpoints("/packs/emojis/:pack_id", packPath, userOrBot),
  ...stickerEndpoints("/packs/stickers/:pack_id", packPath, userOrBot)
).middleware(UserAuthentication) {}
