import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { ClusterStats } from "../../shards/Stats.ts"
import { Actors } from "../guilds/Actors.ts"
import { GuildRepo } from "../../shards/guild/Repo.ts"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { CurrentOperator } from "../http/Authentication.ts"
import { invalidField, missingPermissions, unknown } from "../model/Errors.ts"
import { UserActors } from "../guilds/UserActors.ts"
import { AdminUserResult, AdminUserViews, type UserAdminResponse } from "./users/View.ts"
import { setAcls } from "../../shards/user/operations/Admin.ts"
import { Acl, holds, KNOWN_ACLS } from "./Acls.ts"
import { AdminRepo } from "./Repo.ts"
import { GuildReloader } from "./GuildReloader.ts"
import type { GuildId } from "../model/Ids.ts"

const apiKeyUser = (id: string, acls: ReadonlyArray<string>): UserAdminResponse => ({
  id, username: "api-key", discriminator: 0, global_name: null, bot: false, system: false, flags: "0",
  avatar: null, banner: null, bio: null, pronouns: null, accent_color: null, email: null, email_verified: false,
  email_bounced: false, phone: null, date_of_birth: null, locale: null, premium_type: null, premium_since: null,
  premium_until: null, suspicious_activity_flags: 0, temp_banned_until: null, pending_deletion_at: null,
  pending_bulk_message_deletion_at: null, deletion_reason_code: null, deletion_public_reason: null, acls, traits: [],
  has_totp: false, authenticator_types: [], last_active_at: null, last_active_ip: null, last_active_ip_reverse: null,
  last_active_location: null
})

export const AdminHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "admin", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const repo = yield* AdminRepo
    const views = yield* AdminUserViews
    const userActors = yield* UserActors
    const guilds = yield* GuildRepo
    const actors = yield* Actors
    const stats = yield* ClusterStats
    const reloader = yield* GuildReloader

    /** An operator's command to one guild's actor: it must exist in Postgres; the act is audited. */
    const guildOperation = <A, E>(
      action: string,
      guildId: GuildId,
      command: (guild: ReturnType<typeof actors.guild>) => Effect.Effect<A, E>
    ) =>
      Effect.gen(function*() {
        const op = yield* CurrentOperator
        if (!(yield* guilds.exists(guildId))) return yield* unknown("GUILD")
        yield* actors.bounded(command(actors.guild(guildId)))
        yield* repo.audit({ adminId: op.id, action, targetType: "guild", targetId: guildId })
        return { success: true as const }
      })

    return handlers
      .handle("createApiKey", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const unknownAcl = payload.acls.find((acl) => !KNOWN_ACLS.has(acl))
          if (unknownAcl !== undefined) return yield* invalidField("acls", "INVALID_FORM_BODY", `Unknown ACL ${unknownAcl}`)
          // Nobody hands out more than they hold.
          const beyond = payload.acls.find((acl) => !holds(op.acls, acl))
          if (beyond !== undefined) return yield* missingPermissions()
          const key = yield* repo.createKey({
            name: payload.name,
            acls: payload.acls,
            expiresInDays: payload.expires_in_days,
            createdBy: op.id
          })
          yield* repo.audit({ adminId: op.id, action: "api_key.create", targetType: "api_key", targetId: key.key_id, metadata: { name: key.name } })
          return key
        }))
      .handle("listApiKeys", () => repo.listKeys)
      .handle("deleteApiKey", ({ params }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          if (!(yield* repo.deleteKey(params.keyId))) return yield* unknown("API_KEY")
          yield* repo.audit({ adminId: op.id, action: "api_key.delete", targetType: "api_key", targetId: params.keyId })
          return { success: true as const }
        }))
      .handle("me", () =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const [user] = yield* views.byIds([op.id])
          // An API key is nobody's account: it shows as a user of its own with only its ACLs.
          return { user: user ?? apiKeyUser(op.id, [...op.acls]) }
        }))
      // Through the user's actor, so their own views (staff, staff-only settings) change with the row.
      .handle("setUserAcls", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const unknownAcl = payload.acls.find((acl) => !KNOWN_ACLS.has(acl))
          if (unknownAcl !== undefined) return yield* invalidField("acls", "INVALID_ACLS_FORMAT", `Unknown ACL ${unknownAcl}`)
          // Nobody hands out more than they hold, nor changes their own.
          if (op.id === payload.user_id || payload.acls.some((acl) => !holds(op.acls, acl))) return yield* missingPermissions()
          const user = yield* userActors.write(payload.user_id, setAcls, { acls: payload.acls }, { actorId: op.id })
          const view = yield* views.byId(payload.user_id)
          yield* repo.audit({
            adminId: op.id,
            action: "user.set_acls",
            targetType: "user",
            targetId: payload.user_id,
            metadata: { acls: user.acls.join(",") }
          })
          return { user: view }
        }))
      .handle("auditLogs", ({ payload }) => repo.searchLogs(payload))
      .handle("searchAuditLogs", ({ payload }) => repo.searchLogs(payload))
      .handle("reloadGuild", ({ payload }) => guildOperation("guild.reload", payload.guild_id, (guild) => guild.Reload()))
      .handle("shutdownGuild", ({ payload }) => guildOperation("guild.shutdown", payload.guild_id, (guild) => guild.Shutdown()))
      .handle("reloadAll", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const count = yield* reloader.reloadAll(payload.guild_ids)
          yield* repo.audit({
            adminId: op.id,
            action: "gateway.reload_all",
            targetType: "gateway",
            targetId: "all",
            metadata: { count: String(count) }
          })
          return { count }
        }))
      .handle("gatewayStats", () =>
        Effect.gen(function*() {
          const { complete, processes } = yield* stats.all
          const sum = (pick: (p: (typeof processes)[number]) => number) => processes.reduce((n, p) => n + pick(p), 0)
          const memory = sum((p) => p.memory)
          const heap = sum((p) => p.heap_used)
          return {
            // Degraded: Redis could not be read, and only this process speaks.
            status: complete && processes.length > 0 ? "ok" : "degraded",
            sessions: sum((p) => p.sessions),
            guilds: sum((p) => p.guilds),
            presences: sum((p) => p.presences),
            calls: sum((p) => p.calls),
            // As the production service splits its runtime's memory: the heaps of what runs, and the rest.
            memory: { total: memory, processes: heap, system: memory - heap },
            process_count: processes.length,
            // Required by the spec; nothing bounds the number of processes here, and 0 says so (README, Cluster).
            process_limit: 0,
            uptime_seconds: Math.max(0, ...processes.map((p) => p.uptime_seconds)),
            processes: processes.map(({ heaviest: _, ...rest }) => rest)
          }
        }))
      .handle("memoryStats", ({ payload }) =>
        Effect.gen(function*() {
          const { processes } = yield* stats.all
          const heaviest = processes
            .flatMap((p) => p.heaviest)
            .sort((a, b) => b.memory - a.memory)
            .slice(0, payload.limit ?? 25)
          const audiences = yield* stats.audiences(heaviest.map((g) => g.guild_id))
          return {
            guilds: heaviest.map((g) => ({
              ...g,
              session_count: audiences.get(g.guild_id)?.sessions ?? 0,
              presence_count: audiences.get(g.guild_id)?.presences ?? 0
            }))
          }
        }))
  }))))
