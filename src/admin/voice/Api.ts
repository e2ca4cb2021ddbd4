import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AdminAuthentication } from "../../http/Authentication.ts"
import { BoundedText } from "../../model/Common.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { Snowflake } from "../../model/Ids.ts"

/**
 * A region's or server's id: an operator's short name ("eu-west") or a snowflake,
 * as the production service takes it (1 to 64 characters); letters, digits, `.`, `_`, `-`.
 */
const VoiceKey = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9._-]{1,64}$/, { message: "STRING_LENGTH_INVALID: 1 to 64 letters, digits, '.', '_' or '-'" })
)
const Latitude = Schema.Number.check(Schema.isBetween({ minimum: -90, maximum: 90 }))
const Longitude = Schema.Number.check(Schema.isBetween({ minimum: -180, maximum: 180 }))
const Feature = Schema.String.check(Schema.isPattern(/^[A-Z0-9_]{1,64}$/, { message: "INVALID_FORMAT: A guild feature name" }))
/** A client's signal WebSocket URL (ws, wss, or http(s) which clients upgrade). */
const Endpoint = Schema.String.check(
  Schema.isMaxLength(2048),
  Schema.makeFilter((s: string) => {
    try {
      return ["ws:", "wss:", "http:", "https:"].includes(new URL(s).protocol) || "INVALID_URL_FORMAT: A ws, wss, http or https URL"
    } catch {
      return "INVALID_URL_FORMAT: A ws, wss, http or https URL"
    }
  })
)
const Credential = BoundedText(1, 256)

const accessFields = {
  vip_only: Schema.optional(Schema.Boolean),
  required_guild_features: Schema.optional(Schema.Array(Feature).check(Schema.isMaxLength(100))),
  allowed_guild_ids: Schema.optional(Schema.Array(Snowflake).check(Schema.isMaxLength(1000))),
  allowed_user_ids: Schema.optional(Schema.Array(Snowflake).check(Schema.isMaxLength(1000)))
}

export const CreateVoiceRegionRequest = Schema.Struct({
  id: VoiceKey,
  name: BoundedText(1, 100),
  emoji: BoundedText(1, 64),
  latitude: Latitude,
  longitude: Longitude,
  is_default: Schema.optional(Schema.Boolean),
  ...accessFields
})
export type CreateVoiceRegionRequest = typeof CreateVoiceRegionRequest.Type

export const UpdateVoiceRegionRequest = Schema.Struct({
  id: VoiceKey,
  name: Schema.optional(BoundedText(1, 100)),
  emoji: Schema.optional(BoundedText(1, 64)),
  latitude: Schema.optional(Latitude),
  longitude: Schema.optional(Longitude),
  is_default: Schema.optional(Schema.Boolean),
  ...accessFields
})
export type UpdateVoiceRegionRequest = typeof UpdateVoiceRegionRequest.Type

export const VoiceRegionIdRequest = Schema.Struct({ id: VoiceKey })
export const GetVoiceRegionRequest = Schema.Struct({ id: VoiceKey, include_servers: Schema.optional(Schema.Boolean) })
export const ListVoiceRegionsRequest = Schema.Struct({ include_servers: Schema.optional(Schema.Boolean) })

export const CreateVoiceServerRequest = Schema.Struct({
  region_id: VoiceKey,
  server_id: VoiceKey,
  endpoint: Endpoint,
  api_key: Credential,
  api_secret: Credential,
  is_active: Schema.optional(Schema.Boolean),
  ...accessFields
})
export type CreateVoiceServerRequest = typeof CreateVoiceServerRequest.Type

export const UpdateVoiceServerRequest = Schema.Struct({
  region_id: VoiceKey,
  server_id: VoiceKey,
  endpoint: Schema.optional(Endpoint),
  api_key: Schema.optional(Credential),
  api_secret: Schema.optional(Credential),
  is_active: Schema.optional(Schema.Boolean),
  ...accessFields
})
export type UpdateVoiceServerRequest = typeof UpdateVoiceServerRequest.Type

export const VoiceServerKeyRequest = Schema.Struct({ region_id: VoiceKey, server_id: VoiceKey })
export const ListVoiceServersRequest = Schema.Struct({ region_id: VoiceKey })

const accessResponse = {
  vip_only: Schema.Boolean,
  required_guild_features: Schema.Array(Schema.String),
  allowed_guild_ids: Schema.Array(Schema.String),
  allowed_user_ids: Schema.Array(Schema.String),
  created_at: Schema.NullOr(Schema.String),
  updated_at: Schema.NullOr(Schema.String)
}

export const VoiceRegionAdminResponse = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  emoji: Schema.String,
  latitude: Schema.Number,
  longitude: Schema.Number,
  is_default: Schema.Boolean,
  ...accessResponse
})

/** Never with the API key's secret: that goes in and does not come back. */
export const VoiceServerAdminResponse = Schema.Struct({
  region_id: Schema.String,
  server_id: Schema.String,
  endpoint: Schema.String,
  is_active: Schema.Boolean,
  ...accessResponse
})

export const VoiceRegionWithServers = Schema.Struct({
  ...VoiceRegionAdminResponse.fields,
  servers: Schema.optional(Schema.Array(VoiceServerAdminResponse))
})

export const VoiceRegionResponse = Schema.Struct({ region: VoiceRegionAdminResponse })
export const GetVoiceRegionResponse = Schema.Struct({ region: Schema.NullOr(VoiceRegionWithServers) })
export const ListVoiceRegionsResponse = Schema.Struct({ regions: Schema.Array(VoiceRegionWithServers) })
export const VoiceServerResponse = Schema.Struct({ server: VoiceServerAdminResponse })
export const GetVoiceServerResponse = Schema.Struct({ server: Schema.NullOr(VoiceServerAdminResponse) })
export const ListVoiceServersResponse = Schema.Struct({ servers: Schema.Array(VoiceServerAdminResponse) })
export const DeleteVoiceResponse = Schema.Struct({ success: Schema.Boolean })

/** The operators' voice regions and media servers, in the production service's shapes (get answers null for an unknown one). */
export class AdminVoiceApi extends HttpApiGroup.make("adminVoice").add(
  HttpApiEndpoint.post("createRegion", "/admin/voice/regions/create", { payload: CreateVoiceRegionRequest, success: VoiceRegionResponse, error: ApiErrors }),
  HttpApiEndpoint.post("updateRegion", "/admin/voice/regions/update", { payload: UpdateVoiceRegionRequest, success: VoiceRegionResponse, error: ApiErrors }),
  HttpApiEndpoint.post("deleteRegion", "/admin/voice/regions/delete", { payload: VoiceRegionIdRequest, success: DeleteVoiceResponse, error: ApiErrors }),
  HttpApiEndpoint.post("getRegion", "/admin/voice/regions/get", { payload: GetVoiceRegionRequest, success: GetVoiceRegionResponse, error: ApiErrors }),
  HttpApiEndpoint.post("listRegions", "/admin/voice/regions/list", { payload: ListVoiceRegionsRequest, success: ListVoiceRegionsResponse, error: ApiErrors }),
  HttpApiEndpoint.post("createServer", "/admin/voice/servers/create", { payload: CreateVoiceServerRequest, success: VoiceServerResponse, error: ApiErrors }),
  HttpApiEndpoint.post("updateServer", "/admin/voice/servers/update", { payload: UpdateVoiceServerRequest, success: VoiceServerResponse, error: ApiErrors }),
  HttpApiEndpoint.post("deleteServer", "/admin/voice/servers/delete", { payload: VoiceServerKeyRequest, success: DeleteVoiceResponse, error: ApiErrors }),
  HttpApiEndpoint.post("getServer", "/admin/voice/servers/get", { payload: VoiceServerKeyRequest, success: GetVoiceServerResponse, error: ApiErrors }),
  HttpApiEndpoint.post("listServers", "/admin/voice/servers/list", { payload: ListVoiceServersRequest, success: ListVoiceServersResponse, error: ApiErrors })
).middleware(AdminAuthentication) {}
