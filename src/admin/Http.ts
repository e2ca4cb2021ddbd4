import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { ClusterStats } from "../../shards/Stats.ts"
import { Actors } from "../guilds/Actors.ts"
import { GuildRepo } from "../../shards/guild/Repo.ts"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { CurrentOperator } from "../http/Authentication.ts"
import { invalidField, missingPermissions, unknown } from "../model/Errors.ts"
import type { UserPrivateResponse } from "../model/Users.ts"
import { UserActors } from "../guilds/UserActors.ts"
import { UsersRepo } from "../users/Repo.ts"
import { setAcls } from "../../shards/user/operations/Admin.ts"
import { Acl, holds, KNOWN_ACLS } from "./Acls.ts"
import { AdminRepo } from "./Repo.ts"
import { GuildReloader } from "./GuildReloader.ts"
import type { GuildId } from "../model/Ids.ts"

/** A user as the admin API shows one, from their actor's private view. */
const adminView = (user: UserPrivateResponse) => ({
  id: user.id,
  username: user.username,
  discriminator: user.discriminator,
  global_name: user.global_name,
  email: user.email,
  acls: user.acls,
  flags: user.flags,
  bot: user.bot ?? false
})

/** The route's ACL, and who is acting, for the audit entry. */
const requireAcl = (acl: string) =>
  Effect.flatMap(CurrentOperator, (op) => (holds(op.acls, acl) ? Effect.succeed(op) : Effect.fail(missingPermissions())))

export const AdminHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "admin", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const repo = yield* AdminRepo
    const users = yield* UsersRepo
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
        const op = yield* requireAcl(Acl.guildsManage)
        if (!(yield* guilds.exists(guildId))) return yield* unknown("GUILD")
        yield* actors.bounded(command(actors.guild(guildId)))
        yield* repo.audit({ adminId: op.id, action, targetType: "guild", targetId: guildId })
        return { success: true as const }
      })

    return handlers
      .handle("createApiKey", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* requireAcl(Acl.apiKeysManage)
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
      .handle("listApiKeys", () => Effect.andThen(requireAcl(Acl.apiKeysManage), repo.listKeys))
      .handle("deleteApiKey", ({ params }) =>
        Effect.gen(function*() {
          const op = yield* requireAcl(Acl.apiKeysManage)
          if (!(yield* repo.deleteKey(params.keyId))) return yield* unknown("API_KEY")
          yield* repo.audit({ adminId: op.id, action: "api_key.delete", targetType: "api_key", targetId: params.keyId })
          return { success: true as const }
        }))
      .handle("me", () =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const user = yield* users.findById(op.id)
          return {
            user: {
              id: op.id,
              username: user?.username ?? "api-key",
              discriminator: user?.discriminator ?? "0000",
              global_name: user?.global_name ?? null,
              email: user?.email ?? null,
              acls: [...op.acls],
              flags: Number(user?.flags ?? 0),
              bot: false
            }
          }
        }))
      // Through the user's actor, so their own views (staff, staff-only settings) change with the row.
      .handle("setUserAcls", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* requireAcl(Acl.aclsSet)
          const unknownAcl = payload.acls.find((acl) => !KNOWN_ACLS.has(acl))
          if (unknownAcl !== undefined) return yield* invalidField("acls", "INVALID_ACLS_FORMAT", `Unknown ACL ${unknownAcl}`)
          // Nobody hands out more than they hold, nor changes their own.
          if (op.id === payload.user_id || payload.acls.some((acl) => !holds(op.acls, acl))) return yield* missingPermissions()
          const user = yield* userActors.write(payload.user_id, setAcls, { acls: payload.acls }, { actorId: op.id })
          yield* repo.audit({
            adminId: op.id,
            action: "user.set_acls",
            targetType: "user",
            targetId: payload.user_id,
            metadata: { acls: user.acls.join(",") }
          })
          return { user: adminView(user) }
        }))
      .handle("auditLogs", ({ payload }) => Effect.andThen(requireAcl(Acl.auditLogsView), repo.searchLogs(payload)))
      .handle("searchAuditLogs", ({ payload }) => Effect.andThen(requireAcl(Acl.auditLogsView), repo.searchLogs(payload)))
      .handle("reloadGuild", ({ payload }) => guildOperation("guild.reload", payload.guild_id, (guild) => guild.Reload()))
      .handle("shutdownGuild", ({ payload }) => guildOperation("guild.shutdown", payload.guild_id, (guild) => guild.Shutdown()))
      .handle("reloadAll", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* requireAcl(Acl.gatewayManage)
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
          yield* requireAcl(Acl.gatewayView)
          const processes = yield* stats.all
          const sum = (pick: (p: (typeof processes)[number]) => number) => processes.reduce((n, p) => n + pick(p), 0)
          const memory = sum((p) => p.memory)
          const heap = sum((p) => p.heap_used)
          return {
            status: processes.length > 0 ? "ok" : "degraded",
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
          yield* requireAcl(Acl.gatewayView)
          const processes = yield* stats.all
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
