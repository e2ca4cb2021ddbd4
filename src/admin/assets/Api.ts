import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AdminAuthentication } from "../../http/Authentication.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { Snowflake } from "../../model/Ids.ts"

export const PurgeGuildAssetsRequest = Schema.Struct({ ids: Schema.Array(Snowflake).check(Schema.isMaxLength(100)) })

export const PurgeGuildAssetResult = Schema.Struct({
  id: Schema.String,
  asset_type: Schema.Literals(["emoji", "sticker", "unknown"]),
  found_in_db: Schema.Boolean,
  guild_id: Schema.NullOr(Schema.String)
})
export type PurgeGuildAssetResult = typeof PurgeGuildAssetResult.Type

export const PurgeGuildAssetError = Schema.Struct({ id: Schema.String, error: Schema.String })

export const PurgeGuildAssetsResponse = Schema.Struct({
  processed: Schema.Array(PurgeGuildAssetResult),
  errors: Schema.Array(PurgeGuildAssetError)
})

/** Taking down guild emojis and stickers by id, their images with them (part B). */
export class AdminAssetsApi extends HttpApiGroup.make("adminAssets").add(
  HttpApiEndpoint.post("purge", "/admin/assets/purge", {
    payload: PurgeGuildAssetsRequest,
    success: PurgeGuildAssetsResponse,
    error: ApiErrors
  })
).middleware(AdminAuthentication) {}
