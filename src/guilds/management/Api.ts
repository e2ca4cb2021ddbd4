import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { SudoFields } from "../../auth/Sudo.ts"
import { Credentials, UserAuthentication, userOrBot } from "../../http/Authentication.ts"
import { Snowflake } from "../../model/Ids.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { RateLimit, RateLimitBucket } from "../../ratelimit/RateLimit.ts"
import { GuildResponse } from "../../model/Guilds.ts"
import { GuildPath } from "../../http/Paths.ts"


export const GuildTransferOwnershipRequest = Schema.Struct({
  new_owner_id: Snowflake,
  password: SudoFields.password
})

/** The owner's proof: the password, or an MFA proof when MFA is on (sudo mode). */
export const GuildDeleteRequest = Schema.Struct(SudoFields)

export const EnabledToggleRequest = Schema.Struct({ enabled: Schema.Boolean })

/** Lowercase letters, digits and dashes, 2 to 32 of them: it becomes part of an invite URL. */
export const VanityCode = Schema.String.check(
  Schema.isPattern(/^[a-z0-9-]{2,32}$/, {
    message: "INVALID_VANITY_URL_CODE: 2 to 32 lowercase letters, digits or dashes"
  })
)

export const GuildVanityURLUpdateRequest = Schema.Struct({ code: Schema.optional(Schema.NullOr(VanityCode)) })
export const GuildVanityURLUpdateResponse = Schema.Struct({ code: Schema.NullOr(Schema.String) })
export const GuildVanityURLResponse = Schema.Struct({
  code: Schema.NullOr(Schema.String),
  uses: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2147483647 }))
})

/** Per user: each of these carries a password or MFA guess. */
const proofBucket = (name: string) => ({ name: `guild.${name}`, limit: 5, windowMillis: 60_000 })

/** Guild-level operations of the owner and of MANAGE_GUILD (the settings PATCH is in Api.ts). */
export class GuildManagementApi extends HttpApiGroup.make("guildManagement").add(
  HttpApiEndpoint.post("transferOwnership", "/guilds/:guild_id/transfer-ownership", {
    params: GuildPath,
    payload: GuildTransferOwnershipRequest,
    success: GuildResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot).annotate(RateLimitBucket, proofBucket("transferOwnership")).middleware(RateLimit),
  HttpApiEndpoint.post("delete", "/guilds/:guild_id/delete", {
    params: GuildPath,
    payload: GuildDeleteRequest,
    error: ApiErrors
  }).annotate(Credentials, userOrBot).annotate(RateLimitBucket, proofBucket("delete")).middleware(RateLimit),
  HttpApiEndpoint.patch("detachedBanner", "/guilds/:guild_id/detached-banner", {
    params: GuildPath,
    payload: EnabledToggleRequest,
    success: GuildResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.patch("flexibleNames", "/guilds/:guild_id/text-channel-flexible-names", {
    params: GuildPath,
    payload: EnabledToggleRequest,
    success: GuildResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.get("vanityUrl", "/guilds/:guild_id/vanity-url", {
    params: GuildPath,
    success: GuildVanityURLResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.patch("updateVanityUrl", "/guilds/:guild_id/vanity-url", {
    params: GuildPath,
    payload: GuildVanityURLUpdateRequest,
    success: GuildVanityURLUpdateResponse,
    error: ApiErrors
  }).annotate(Credentials, userOrBot)
).middleware(UserAuthentication) {}
