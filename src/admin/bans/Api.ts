import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AdminAuthentication } from "../../http/Authentication.ts"
import { SuccessResponse } from "../../model/Common.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { Snowflake } from "../../model/Ids.ts"
import { PhoneNumber } from "../../phone/Api.ts"

const Email = Schema.String.check(
  Schema.isMaxLength(254),
  Schema.isPattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: "INVALID_EMAIL_FORMAT: Not a valid email address" })
)

/** An address or a CIDR range; which forms are read is the handler's (IpAddress.ts), to answer a field error. */
export const BanIpRequest = Schema.Struct({ ip: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(64)) })
export const BanEmailRequest = Schema.Struct({ email: Email })
export const BanPhoneRequest = Schema.Struct({ phone: PhoneNumber })
export const ListBansRequest = Schema.Struct({
  limit: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10_000 })))
})

export const BanCheckResponse = Schema.Struct({ banned: Schema.Boolean })
export const IpBanListEntry = Schema.Struct({ ip: Schema.String, reverse_dns: Schema.NullOr(Schema.String) })
export const ListIpBansResponse = Schema.Struct({ bans: Schema.Array(IpBanListEntry) })
export const ListBansResponse = Schema.Struct({ bans: Schema.Array(Schema.String) })

export const SnowflakeReservationEntry = Schema.Struct({
  email: Schema.String,
  snowflake: Schema.String,
  updated_at: Schema.NullOr(Schema.String)
})
export const AddSnowflakeReservationRequest = Schema.Struct({ email: Email, snowflake: Snowflake })
export const DeleteSnowflakeReservationRequest = Schema.Struct({ email: Email })
export const ListSnowflakeReservationsResponse = Schema.Struct({ reservations: Schema.Array(SnowflakeReservationEntry) })

/** Adding and removing answer 204 (no body), as the production service's do. */
export class AdminBansApi extends HttpApiGroup.make("adminBans").add(
  HttpApiEndpoint.post("addEmailBan", "/admin/bans/email/add", { payload: BanEmailRequest, error: ApiErrors }),
  HttpApiEndpoint.post("removeEmailBan", "/admin/bans/email/remove", { payload: BanEmailRequest, error: ApiErrors }),
  HttpApiEndpoint.post("checkEmailBan", "/admin/bans/email/check", { payload: BanEmailRequest, success: BanCheckResponse, error: ApiErrors }),
  HttpApiEndpoint.post("listEmailBans", "/admin/bans/email/list", { payload: ListBansRequest, success: ListBansResponse, error: ApiErrors }),
  HttpApiEndpoint.post("addIpBan", "/admin/bans/ip/add", { payload: BanIpRequest, error: ApiErrors }),
  HttpApiEndpoint.post("removeIpBan", "/admin/bans/ip/remove", { payload: BanIpRequest, error: ApiErrors }),
  HttpApiEndpoint.post("checkIpBan", "/admin/bans/ip/check", { payload: BanIpRequest, success: BanCheckResponse, error: ApiErrors }),
  HttpApiEndpoint.post("listIpBans", "/admin/bans/ip/list", { payload: ListBansRequest, success: ListIpBansResponse, error: ApiErrors }),
  HttpApiEndpoint.post("addPhoneBan", "/admin/bans/phone/add", { payload: BanPhoneRequest, error: ApiErrors }),
  HttpApiEndpoint.post("removePhoneBan", "/admin/bans/phone/remove", { payload: BanPhoneRequest, error: ApiErrors }),
  HttpApiEndpoint.post("checkPhoneBan", "/admin/bans/phone/check", { payload: BanPhoneRequest, success: BanCheckResponse, error: ApiErrors }),
  HttpApiEndpoint.post("listPhoneBans", "/admin/bans/phone/list", { payload: ListBansRequest, success: ListBansResponse, error: ApiErrors }),
  HttpApiEndpoint.post("addSnowflakeReservation", "/admin/snowflake-reservations/add", {
    payload: AddSnowflakeReservationRequest,
    success: SuccessResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("deleteSnowflakeReservation", "/admin/snowflake-reservations/delete", {
    payload: DeleteSnowflakeReservationRequest,
    success: SuccessResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("listSnowflakeReservations", "/admin/snowflake-reservations/list", {
    success: ListSnowflakeReservationsResponse,
    error: ApiErrors
  })
).middleware(AdminAuthentication) {}
