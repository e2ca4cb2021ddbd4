import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { DiscoveryApplicationResponse } from "../../discovery/Schemas.ts"
import { AdminAuthentication } from "../../http/Authentication.ts"
import { GuildPath } from "../../http/Paths.ts"
import { BoundedText } from "../../model/Common.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { GuildId } from "../../model/Ids.ts"

const Reason = BoundedText(1, 1000)

export const ApplicationStatus = Schema.Literals(["pending", "approved", "rejected", "removed"])

/** Oldest first; `cursor` is the guild of the last application of the previous page. */
export const ListApplicationsQuery = Schema.Struct({
  status: Schema.optional(ApplicationStatus),
  limit: Schema.optional(Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 200 }))),
  cursor: Schema.optional(GuildId)
})

export const ApproveRequest = Schema.Struct({ reason: Schema.optional(Reason) })
/** Rejecting and removing say why: the guild's owner reads it. */
export const ReasonRequest = Schema.Struct({ reason: Reason })

/** Staff review of discovery applications (part B); production answers the application as it now is. */
export class AdminDiscoveryApi extends HttpApiGroup.make("adminDiscovery").add(
  HttpApiEndpoint.get("listApplications", "/admin/discovery/applications", {
    query: ListApplicationsQuery,
    success: Schema.Array(DiscoveryApplicationResponse),
    error: ApiErrors
  }),
  HttpApiEndpoint.post("approve", "/admin/discovery/applications/:guild_id/approve", {
    params: GuildPath,
    payload: ApproveRequest,
    success: DiscoveryApplicationResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("reject", "/admin/discovery/applications/:guild_id/reject", {
    params: GuildPath,
    payload: ReasonRequest,
    success: DiscoveryApplicationResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("remove", "/admin/discovery/guilds/:guild_id/remove", {
    params: GuildPath,
    payload: ReasonRequest,
    success: DiscoveryApplicationResponse,
    error: ApiErrors
  })
).middleware(AdminAuthentication) {}
