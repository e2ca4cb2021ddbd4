import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Guild from "../../shards/guild/operations/Guild.ts"
import { Permission } from "../model/Permissions.ts"
import { Actors } from "../guilds/Actors.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { invalidField } from "../model/Errors.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { AuditLogRepo } from "./Repo.ts"

const DEFAULT_LIMIT = 50
const VIEW_AUDIT_LOG = Permission.VIEW_AUDIT_LOG.toString()

const AuditLogHandlers = HttpApiBuilder.group(Api, "auditLog", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const repo = yield* AuditLogRepo
    return handlers.handle("list", ({ params, query }) =>
      Effect.gen(function*() {
        const me = yield* CurrentUser
        if (query.before !== undefined && query.after !== undefined) {
          return yield* invalidField("after", "INVALID_FORM_BODY", "Use before or after, not both")
        }
        // The guild's actor knows who may look: members holding VIEW_AUDIT_LOG.
        yield* actors.read(params.guild_id, Guild.viewerPermissions, { wanted: VIEW_AUDIT_LOG, now: Date.now() }, me.id)
        const entries = yield* repo.entries(params.guild_id, {
          limit: query.limit ?? DEFAULT_LIMIT,
          before: query.before,
          after: query.after,
          userId: query.user_id,
          actionType: query.action_type
        })
        const users = yield* repo.usersOf(entries)
        const webhooks = yield* repo.webhooksOf(params.guild_id, entries)
        return { audit_log_entries: entries, users, webhooks }
      }))
  })))

/** GET /guilds/{id}/audit-logs. */
export const AuditLogHttp = perRequestMiddlewaresOnly(AuditLogHandlers).pipe(Layer.provide(AuditLogRepo.layer))
