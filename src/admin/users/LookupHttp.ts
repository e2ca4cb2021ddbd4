import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Sessions } from "../../auth/Sessions.ts"
import { Api } from "../../http/Api.ts"
import { CurrentOperator } from "../../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { invalidField, unknown } from "../../model/Errors.ts"
import { parseUserAgent } from "../../sessions/ClientInfo.ts"
import { AdminRepo } from "../Repo.ts"
import { AdminUserLookup } from "./LookupRepo.ts"
import { AdminUserViews } from "./View.ts"

const DEFAULT_LIMIT = 50

/** `before` and `after` page opposite ways: asking both is a 400, as for audit logs. */
const onePageDirection = (page: { readonly before?: string | undefined; readonly after?: string | undefined }) =>
  page.before !== undefined && page.after !== undefined
    ? invalidField("after", "INVALID_FORM_BODY", "Give before or after, not both")
    : Effect.void

export const AdminUserLookupHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "adminUserLookup", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const lookup = yield* AdminUserLookup
    const views = yield* AdminUserViews
    const sessions = yield* Sessions
    const audit = yield* AdminRepo

    const mustExist = (userId: string) =>
      Effect.flatMap(lookup.exists(userId), (found) => (found ? Effect.void : unknown("USER")))

    return handlers
      .handle("lookupUser", ({ payload }) =>
        Effect.gen(function*() {
          const ids = "query" in payload ? yield* lookup.find(payload.query) : [...new Set(payload.user_ids)]
          return { users: yield* views.byIds(ids) }
        }))
      .handle("searchUsers", ({ payload }) =>
        Effect.gen(function*() {
          const found = yield* lookup.search({ query: payload.query, limit: payload.limit ?? DEFAULT_LIMIT, offset: payload.offset ?? 0 })
          return { users: yield* views.byIds(found.ids), total: found.total }
        }))
      .handle("userChangeLog", ({ payload }) =>
        Effect.gen(function*() {
          yield* mustExist(payload.user_id)
          const limit = payload.limit ?? DEFAULT_LIMIT
          const entries = yield* lookup.changeLog(payload.user_id, limit, payload.page_token)
          // A full page may have more behind it; the token is its oldest entry.
          const last = entries.length === limit ? entries[entries.length - 1] : undefined
          return { entries, next_page_token: last?.event_id ?? null }
        }))
      // Who was signed in from where is personal: production audits reading it, and so does this.
      .handle("listUserSessions", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          yield* mustExist(payload.user_id)
          const stored = yield* sessions.list(payload.user_id)
          yield* audit.audit({
            adminId: op.id,
            action: "user.list_sessions",
            targetType: "user",
            targetId: payload.user_id,
            metadata: { session_count: String(stored.length) }
          })
          return {
            sessions: stored.map((session) => {
              const client = parseUserAgent(session.userAgent)
              return {
                session_id_hash: session.tokenHash.toString("base64url"),
                created_at: session.createdAt.toISOString(),
                approx_last_used_at: session.lastUsedAt.toISOString(),
                // Production's field is a string; a session that never showed an address has none.
                client_ip: session.clientIp ?? "",
                // No reverse DNS nor geolocation here (as the admin user view).
                client_ip_reverse: null,
                client_os: client.os,
                client_platform: client.platform,
                client_location: null
              }
            })
          }
        }))
      .handle("listUserDmChannels", ({ payload }) =>
        Effect.gen(function*() {
          yield* onePageDirection(payload)
          yield* mustExist(payload.user_id)
          return { channels: yield* lookup.dmChannels(payload) }
        }))
      .handle("listUserGuilds", ({ payload }) =>
        Effect.gen(function*() {
          yield* onePageDirection(payload)
          yield* mustExist(payload.user_id)
          return { guilds: yield* lookup.guilds(payload) }
        }))
      .handle("listUserWebauthnCredentials", ({ payload }) =>
        Effect.gen(function*() {
          yield* mustExist(payload.user_id)
          return yield* lookup.webauthnCredentials(payload.user_id)
        }))
  }))))
