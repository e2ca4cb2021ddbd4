import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AdminArchiveResponse, DownloadUrlResponse, SubjectType } from "../../archives/Schemas.ts"
import { AdminAuthentication } from "../../http/Authentication.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { GuildId, Snowflake, UserId } from "../../model/Ids.ts"

export const ListArchivesRequest = Schema.Struct({
  subject_type: Schema.optional(SubjectType),
  subject_id: Schema.optional(Snowflake),
  requested_by: Schema.optional(Snowflake),
  include_expired: Schema.optional(Schema.Boolean),
  limit: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 })))
})

const ArchivePath = { subjectType: SubjectType, subjectId: Snowflake, archiveId: Snowflake }

// /admin/archives/*: the shapes of the production service's ArchiveAdminController.
export class AdminArchivesApi extends HttpApiGroup.make("adminArchives").add(
  HttpApiEndpoint.post("user", "/admin/archives/user", {
    payload: Schema.Struct({ user_id: UserId }),
    success: AdminArchiveResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("guild", "/admin/archives/guild", {
    payload: Schema.Struct({ guild_id: GuildId }),
    success: AdminArchiveResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("list", "/admin/archives/list", {
    payload: ListArchivesRequest,
    success: Schema.Struct({ archives: Schema.Array(AdminArchiveResponse) }),
    error: ApiErrors
  }),
  HttpApiEndpoint.get("get", "/admin/archives/:subjectType/:subjectId/:archiveId", {
    params: ArchivePath,
    success: AdminArchiveResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.get("download", "/admin/archives/:subjectType/:subjectId/:archiveId/download", {
    params: ArchivePath,
    success: DownloadUrlResponse,
    error: ApiErrors
  })
).middleware(AdminAuthentication) {}
