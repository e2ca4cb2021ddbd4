import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AdminAuthentication } from "../../http/Authentication.ts"
import { GuildMembersPage, GuildAdminResponse, GuildUpdateResponse, LookupGuild } from "../../model/AdminGuilds.ts"
import { GuildBanCreateRequest } from "../../model/Bans.ts"
import { BoundedText, SuccessResponse } from "../../model/Common.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { GuildId, UserId } from "../../model/Ids.ts"
import { VanityCode } from "../../guilds/management/Api.ts"
import { BulkOperationResponse } from "../Bulk.ts"

/** Requests and answers of /admin/guilds/* and the guild bulk routes (part B; production's admin guild models). */

const Level = (max: number) => Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: max }))
const Features = Schema.Array(BoundedText(1, 64)).check(Schema.isMaxLength(100))
/** How many ids one bulk request names: each is a write of its own. */
const BulkIds = <S extends Schema.Top>(id: S) => Schema.Array(id).check(Schema.isMinLength(1), Schema.isMaxLength(1000))

const GuildRequest = Schema.Struct({ guild_id: GuildId })
const GuildUserRequest = Schema.Struct({ guild_id: GuildId, user_id: UserId })
const GuildPath = { guild_id: GuildId }

export const SearchGuildsRequest = Schema.Struct({
  query: Schema.optional(BoundedText(1, 1024)),
  limit: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 200 }))),
  offset: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000_000 })))
})

export const ListGuildMembersRequest = Schema.Struct({
  guild_id: GuildId,
  limit: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 }))),
  offset: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000 })))
})

export const UpdateGuildSettingsRequest = Schema.Struct({
  guild_id: GuildId,
  default_message_notifications: Schema.optionalKey(Level(1)),
  disabled_operations: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2 ** 31 - 1 }))),
  explicit_content_filter: Schema.optionalKey(Level(2)),
  mfa_level: Schema.optionalKey(Level(1)),
  nsfw_level: Schema.optionalKey(Level(3)),
  verification_level: Schema.optionalKey(Level(4))
})

/** The guild's image fields an operator may clear. */
export const ClearableGuildField = Schema.Literals(["icon", "banner", "splash", "embed_splash"])

const GuildAssetItem = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  animated: Schema.Boolean,
  creator_id: Schema.String,
  media_url: Schema.String
})

export class AdminGuildsApi extends HttpApiGroup.make("adminGuilds").add(
  HttpApiEndpoint.post("lookup", "/admin/guilds/lookup", {
    payload: GuildRequest,
    success: Schema.Struct({ guild: Schema.NullOr(LookupGuild) }),
    error: ApiErrors
  }),
  HttpApiEndpoint.post("search", "/admin/guilds/search", {
    payload: SearchGuildsRequest,
    success: Schema.Struct({ guilds: Schema.Array(GuildAdminResponse), total: Schema.Int }),
    error: ApiErrors
  }),
  HttpApiEndpoint.post("listMembers", "/admin/guilds/list-members", {
    payload: ListGuildMembersRequest,
    success: GuildMembersPage,
    error: ApiErrors
  }),
  HttpApiEndpoint.get("emojis", "/admin/guilds/:guild_id/emojis", {
    params: GuildPath,
    success: Schema.Struct({ guild_id: Schema.String, emojis: Schema.Array(GuildAssetItem) }),
    error: ApiErrors
  }),
  HttpApiEndpoint.get("stickers", "/admin/guilds/:guild_id/stickers", {
    params: GuildPath,
    success: Schema.Struct({ guild_id: Schema.String, stickers: Schema.Array(GuildAssetItem) }),
    error: ApiErrors
  }),
  HttpApiEndpoint.post("updateName", "/admin/guilds/update-name", {
    payload: Schema.Struct({ guild_id: GuildId, name: BoundedText(1, 100) }),
    success: GuildUpdateResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("updateSettings", "/admin/guilds/update-settings", {
    payload: UpdateGuildSettingsRequest,
    success: GuildUpdateResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("updateFeatures", "/admin/guilds/update-features", {
    payload: Schema.Struct({ guild_id: GuildId, add_features: Schema.optional(Features), remove_features: Schema.optional(Features) }),
    success: GuildUpdateResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("updateVanity", "/admin/guilds/update-vanity", {
    payload: Schema.Struct({ guild_id: GuildId, vanity_url_code: Schema.NullOr(VanityCode) }),
    success: GuildUpdateResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("clearFields", "/admin/guilds/clear-fields", {
    payload: Schema.Struct({ guild_id: GuildId, fields: Schema.Array(ClearableGuildField).check(Schema.isMaxLength(4)) }),
    error: ApiErrors
  }),
  HttpApiEndpoint.post("transferOwnership", "/admin/guilds/transfer-ownership", {
    payload: Schema.Struct({ guild_id: GuildId, new_owner_id: UserId }),
    success: GuildUpdateResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("delete", "/admin/guilds/delete", { payload: GuildRequest, success: SuccessResponse, error: ApiErrors }),
  HttpApiEndpoint.post("banMember", "/admin/guilds/ban-member", {
    payload: Schema.Struct({ ...GuildUserRequest.fields, ...GuildBanCreateRequest.fields }),
    error: ApiErrors
  }),
  HttpApiEndpoint.post("kickMember", "/admin/guilds/kick-member", { payload: GuildUserRequest, error: ApiErrors }),
  HttpApiEndpoint.post("forceAddUser", "/admin/guilds/force-add-user", {
    payload: GuildUserRequest,
    success: SuccessResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("bulkAddMembers", "/admin/bulk/add-guild-members", {
    payload: Schema.Struct({ guild_id: GuildId, user_ids: BulkIds(UserId) }),
    success: BulkOperationResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("bulkUpdateFeatures", "/admin/bulk/update-guild-features", {
    payload: Schema.Struct({
      guild_ids: BulkIds(GuildId),
      add_features: Schema.optional(Features),
      remove_features: Schema.optional(Features)
    }),
    success: BulkOperationResponse,
    error: ApiErrors
  })
).middleware(AdminAuthentication) {}
