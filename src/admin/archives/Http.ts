import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { issueDownload } from "../../archives/Downloads.ts"
import { ArchiveReads } from "../../archives/Reads.ts"
import { ArchivesRepo, type SubjectType } from "../../archives/Repo.ts"
import { adminArchiveView } from "../../archives/Views.ts"
import { Api } from "../../http/Api.ts"
import { CurrentOperator } from "../../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { missingPermissions, NotFound, unknown } from "../../model/Errors.ts"
import { archiveSettings } from "../../archives/Settings.ts"
import { AppConfig } from "../../platform/Config.ts"
import { isoTimestamp } from "../../platform/Timestamps.ts"
import { Snowflakes } from "../../platform/Snowflake.ts"
import { Acl, holds } from "../Acls.ts"
import { AdminRepo } from "../Repo.ts"

/** Production's default page of POST /admin/archives/list. */
const DEFAULT_LIMIT = 50

const triggerAcl: Readonly<Record<SubjectType, string>> = { user: Acl.archiveTriggerUser, guild: Acl.archiveTriggerGuild }

/** The subject types whose archives the operator may see: all with archive:view_all, else those they may trigger. */
const visibleTypes = (acls: ReadonlySet<string>): ReadonlyArray<SubjectType> =>
  holds(acls, Acl.archiveViewAll) ? ["user", "guild"] : (["user", "guild"] as const).filter((t) => holds(acls, triggerAcl[t]))

const unknownArchive = () => new NotFound({ code: "UNKNOWN_ARCHIVE", message: "Unknown archive" })

/**
 * Staff archives of a user or a guild: the same jobs as users' harvests
 * (src/archives/Job.ts writes them), asked for by an operator and never
 * mailed to anyone. Reading one needs archive:view_all or the trigger ACL of
 * its subject type.
 */
const AdminArchivesHandlers = HttpApiBuilder.group(Api, "adminArchives", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const repo = yield* ArchivesRepo
    const reads = yield* ArchiveReads
    const admin = yield* AdminRepo
    const snowflakes = yield* Snowflakes
    const context = yield* Effect.context<ArchivesRepo | AppConfig>()
    const { downloadUrlSeconds } = yield* archiveSettings

    const trigger = (subjectType: SubjectType, subjectId: string) =>
      Effect.gen(function*() {
        const op = yield* CurrentOperator
        if (!(yield* reads.exists(subjectType, subjectId))) return yield* unknown(subjectType === "user" ? "USER" : "GUILD")
        const row = yield* repo.create({ id: snowflakes.next(), subjectType, subjectId, requestedBy: op.id, harvest: false })
        yield* admin.audit({
          adminId: op.id,
          action: `trigger_${subjectType}_archive`,
          targetType: subjectType,
          targetId: subjectId,
          metadata: { archive_id: row.id }
        })
        return adminArchiveView(row)
      })

    /** The archive at the path, if the operator may see archives of its subject type. */
    const visible = (path: { readonly subjectType: SubjectType; readonly subjectId: string; readonly archiveId: string }) =>
      Effect.gen(function*() {
        const op = yield* CurrentOperator
        if (!visibleTypes(op.acls).includes(path.subjectType)) return yield* missingPermissions()
        const row = yield* repo.find(path.archiveId)
        if (row === undefined || row.subject_type !== path.subjectType || row.subject_id !== path.subjectId) {
          return yield* unknownArchive()
        }
        return row
      })

    return handlers
      .handle("user", ({ payload }) => trigger("user", payload.user_id))
      .handle("guild", ({ payload }) => trigger("guild", payload.guild_id))
      .handle("list", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const allowed = visibleTypes(op.acls)
          const wanted = payload.subject_type === undefined ? allowed : allowed.filter((t) => t === payload.subject_type)
          if (wanted.length === 0) return yield* missingPermissions()
          const rows = yield* repo.list({
            subjectTypes: wanted,
            subjectId: payload.subject_id,
            requestedBy: payload.requested_by,
            includeExpired: payload.include_expired ?? false,
            limit: payload.limit ?? DEFAULT_LIMIT
          })
          return { archives: rows.map(adminArchiveView) }
        }))
      .handle("get", ({ params }) => Effect.map(visible(params), adminArchiveView))
      .handle("download", ({ params }) =>
        Effect.gen(function*() {
          const row = yield* visible(params)
          const { url, expiresAt } = yield* issueDownload(row, downloadUrlSeconds).pipe(Effect.provideContext(context))
          return { downloadUrl: url, expiresAt: isoTimestamp(expiresAt) }
        }))
  })))

/** /admin/archives/*: staff archives of users and guilds. */
export const AdminArchivesHttp = perRequestMiddlewaresOnly(AdminArchivesHandlers).pipe(
  Layer.provide([ArchivesRepo.layer, ArchiveReads.layer])
)
