import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import * as AdminGuild from "../../../shards/guild/operations/AdminGuild.ts"
import * as AdminMembers from "../../../shards/guild/operations/AdminMembers.ts"
import { GuildRepo } from "../../../shards/guild/Repo.ts"
import { Actors } from "../../guilds/Actors.ts"
import { auditReason } from "../../guilds/AuditReason.ts"
import { VanityUrls } from "../../guilds/VanityUrls.ts"
import { Api } from "../../http/Api.ts"
import { CurrentOperator } from "../../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { AuthorMessagesRepo } from "../../messages/AuthorMessagesRepo.ts"
import { invalidField, unknown } from "../../model/Errors.ts"
import { forEachId } from "../Bulk.ts"
import { legalHoldCheck } from "../../messages/LegalHoldCheck.ts"
import { CarriedId, type GuildId, type UserId } from "../../model/Ids.ts"
import { toUserPartial } from "../../model/Users.ts"
import { AppConfig } from "../../platform/Config.ts"
import { UsersRepo } from "../../users/Repo.ts"
import { AdminRepo } from "../Repo.ts"
import { AdminGuildsRepo } from "./Repo.ts"

/**
 * /admin/guilds/* and the guild bulk routes. Every change is a write of the
 * guild's actor (shards/guild/operations/Admin*.ts) by the operator, then an
 * entry of the admin audit log; the route's ACL was checked by the middleware.
 */
const AdminGuildsHandlers = HttpApiBuilder.group(Api, "adminGuilds", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const guilds = yield* GuildRepo
    const repo = yield* AdminRepo
    const users = yield* UsersRepo
    const vanity = yield* VanityUrls
    const authorMessages = yield* AuthorMessagesRepo
    const postgres = yield* AdminGuildsRepo
    const holds = legalHoldCheck(yield* SqlClient.SqlClient)
    const config = yield* AppConfig

    /** The operator, and the request's X-Audit-Log-Reason for the guild's own audit entries. */
    const writer = Effect.gen(function*() {
      const op = yield* CurrentOperator
      return { actorId: op.id, reason: yield* auditReason }
    })

    const requireGuild = (guildId: GuildId) =>
      Effect.flatMap(guilds.exists(guildId), (found) => (found ? Effect.void : Effect.fail(unknown("GUILD"))))

    const audit = (action: string, targetType: string, targetId: string, metadata?: Record<string, string>) =>
      Effect.flatMap(CurrentOperator, (op) =>
        repo.audit({ adminId: op.id, action, targetType, targetId, ...(metadata === undefined ? {} : { metadata }) }))

    /** A record change of an existing guild by the operator, audited; answered as GuildUpdateResponse. */
    const changeRecord = (action: string, guildId: GuildId, change: AdminGuild.AdminRecordChange, metadata: Record<string, string>) =>
      Effect.gen(function*() {
        yield* requireGuild(guildId)
        const guild = yield* actors.write(guildId, AdminGuild.adminChangeRecord, { change }, yield* writer)
        yield* audit(action, "guild", guildId, metadata)
        return { guild }
      })

    const updateFeatures = (guildId: GuildId, add: ReadonlyArray<string>, remove: ReadonlyArray<string>, bulk: boolean) =>
      Effect.gen(function*() {
        yield* requireGuild(guildId)
        const guild = yield* actors.write(guildId, AdminGuild.adminUpdateFeatures, { add, remove }, yield* writer)
        yield* audit("guild.update_features", "guild", guildId, {
          add_features: add.join(","),
          remove_features: remove.join(","),
          new_features: guild.features.join(","),
          ...(bulk ? { bulk: "true" } : {})
        })
        return { guild }
      })

    /** The user actor learns of the membership change; Postgres already holds it if this is lost. */
    const tellUser = (userId: string, guildId: GuildId, joined: boolean) => {
      const user = actors.user(CarriedId.UserId.make(userId))
      return (joined ? user.Joined({ guildId }) : user.Left({ guildId })).pipe(
        Effect.timeout("2 seconds"),
        Effect.ignore,
        Effect.forkDetach,
        Effect.asVoid
      )
    }

    const addMember = (guildId: GuildId, userId: UserId) =>
      Effect.gen(function*() {
        yield* requireGuild(guildId)
        const user = yield* users.findById(userId)
        if (user === undefined) return yield* unknown("USER")
        yield* actors.write(guildId, AdminMembers.adminAddMember, { user: toUserPartial(user) }, yield* writer)
        yield* tellUser(userId, guildId, true)
      })

    const mediaUrl = (hash: string) => `${config.publicUrl.replace(/\/+$/, "")}/media/${hash}`
    const assets = (guildId: GuildId, kind: "emojis" | "stickers") =>
      Effect.gen(function*() {
        const op = yield* CurrentOperator
        yield* requireGuild(guildId)
        const items = yield* actors.read(guildId, AdminGuild.adminAssets, { kind }, op.id)
        return items.map(({ media_hash, ...item }) => ({ ...item, media_url: mediaUrl(media_hash) }))
      })

    return handlers
      .handle("lookup", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          // As production answers: a guild that is not there is a null guild, not an error.
          if (!(yield* guilds.exists(payload.guild_id))) return { guild: null }
          return { guild: yield* actors.read(payload.guild_id, AdminGuild.adminLookup, {}, op.id) }
        }))
      .handle("search", ({ payload }) =>
        postgres.search({ query: payload.query, limit: payload.limit ?? 50, offset: payload.offset ?? 0 }))
      .handle("listMembers", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          yield* requireGuild(payload.guild_id)
          return yield* actors.read(payload.guild_id, AdminGuild.adminListMembers, {
            limit: payload.limit ?? 50,
            offset: payload.offset ?? 0
          }, op.id)
        }))
      .handle("emojis", ({ params }) =>
        Effect.map(assets(params.guild_id, "emojis"), (emojis) => ({ guild_id: params.guild_id, emojis })))
      .handle("stickers", ({ params }) =>
        Effect.map(assets(params.guild_id, "stickers"), (stickers) => ({ guild_id: params.guild_id, stickers })))
      .handle("updateName", ({ payload }) =>
        changeRecord("guild.update_name", payload.guild_id, { name: payload.name }, { new_name: payload.name }))
      .handle("updateSettings", ({ payload }) => {
        const { guild_id, ...settings } = payload
        const metadata = Object.fromEntries(Object.entries(settings).map(([key, value]) => [key, String(value)]))
        return changeRecord("guild.update_settings", guild_id, settings, metadata)
      })
      .handle("updateFeatures", ({ payload }) =>
        updateFeatures(payload.guild_id, payload.add_features ?? [], payload.remove_features ?? [], false))
      .handle("updateVanity", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          yield* requireGuild(payload.guild_id)
          const code = payload.vanity_url_code
          if (code !== null) {
            const holder = yield* vanity.holder(code)
            if (holder !== undefined && holder !== payload.guild_id) {
              return yield* invalidField("vanity_url_code", "THIS_VANITY_URL_IS_ALREADY_TAKEN", "This vanity URL is already taken")
            }
          }
          const before = yield* actors.read(payload.guild_id, AdminGuild.adminLookup, {}, op.id)
          const guild = yield* actors.write(payload.guild_id, AdminGuild.adminSetVanity, { code }, yield* writer)
          yield* audit("guild.update_vanity", "guild", payload.guild_id, {
            old_vanity: before.vanity_url_code ?? "",
            new_vanity: code ?? ""
          })
          return { guild }
        }))
      .handle("clearFields", ({ payload }) => {
        const has = (field: "icon" | "banner" | "splash" | "embed_splash") => payload.fields.includes(field)
        const change: AdminGuild.AdminRecordChange = {
          ...(has("icon") ? { icon: null } : {}),
          ...(has("banner") ? { banner: null } : {}),
          ...(has("splash") ? { splash: null } : {}),
          ...(has("embed_splash") ? { embed_splash: null } : {})
        }
        return Effect.asVoid(changeRecord("guild.clear_fields", payload.guild_id, change, { fields: payload.fields.join(",") }))
      })
      .handle("transferOwnership", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          yield* requireGuild(payload.guild_id)
          const before = yield* actors.read(payload.guild_id, AdminGuild.adminLookup, {}, op.id)
          const guild = yield* actors.write(payload.guild_id, AdminGuild.adminTransferOwnership, {
            newOwnerId: payload.new_owner_id
          }, yield* writer)
          yield* audit("guild.transfer_ownership", "guild", payload.guild_id, {
            old_owner_id: before.owner_id,
            new_owner_id: payload.new_owner_id
          })
          return { guild }
        }))
      .handle("delete", ({ payload }) =>
        Effect.gen(function*() {
          yield* requireGuild(payload.guild_id)
          // The guild's rows go with it, messages included: held ones must not (shards/actors/LegalHolds.ts).
          yield* holds.refuseHeldIn({ guildId: payload.guild_id })
          const deleted = yield* actors.write(payload.guild_id, AdminGuild.adminDeleteGuild, {}, yield* writer)
          yield* audit("guild.delete", "guild", payload.guild_id)
          // Postgres no longer lists the memberships; the user actors hold them in memory until told.
          yield* Effect.forEach(deleted.memberIds, (userId) => tellUser(userId, payload.guild_id, false), { discard: true })
          return { success: true as const }
        }))
      .handle("banMember", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          yield* requireGuild(payload.guild_id)
          const target = yield* users.findById(payload.user_id)
          if (target === undefined) return yield* unknown("USER")
          const days = payload.delete_message_days ?? 0
          const messages = yield* authorMessages.forBan(payload.guild_id, target.id, days)
          const reason = payload.reason ?? null
          yield* actors.write(payload.guild_id, AdminMembers.adminBanMember, {
            target: toUserPartial(target),
            reason,
            deleteMessageDays: days,
            durationSeconds: payload.ban_duration_seconds ?? 0,
            ...messages
          }, { actorId: op.id, reason: (yield* auditReason) ?? reason })
          yield* audit("guild.ban_member", "user", payload.user_id, {
            guild_id: payload.guild_id,
            delete_message_days: String(days),
            ban_duration_seconds: String(payload.ban_duration_seconds ?? 0),
            ...(reason === null ? {} : { reason })
          })
          yield* tellUser(payload.user_id, payload.guild_id, false)
        }))
      .handle("kickMember", ({ payload }) =>
        Effect.gen(function*() {
          yield* requireGuild(payload.guild_id)
          yield* actors.write(payload.guild_id, AdminMembers.adminKickMember, { targetId: payload.user_id }, yield* writer)
          yield* audit("guild.kick_member", "user", payload.user_id, { guild_id: payload.guild_id })
          yield* tellUser(payload.user_id, payload.guild_id, false)
        }))
      .handle("forceAddUser", ({ payload }) =>
        Effect.gen(function*() {
          yield* addMember(payload.guild_id, payload.user_id)
          yield* audit("guild.force_add_user", "user", payload.user_id, { guild_id: payload.guild_id })
          return { success: true as const }
        }))
      .handle("bulkAddMembers", ({ payload }) =>
        Effect.gen(function*() {
          yield* requireGuild(payload.guild_id)
          const result = yield* forEachId(payload.user_ids, (userId) => addMember(payload.guild_id, userId))
          yield* audit("bulk.add_guild_members", "guild", payload.guild_id, {
            user_count: String(payload.user_ids.length),
            failed_count: String(result.failed.length)
          })
          return result
        }))
      .handle("bulkUpdateFeatures", ({ payload }) =>
        Effect.gen(function*() {
          const add = payload.add_features ?? []
          const remove = payload.remove_features ?? []
          const result = yield* forEachId(payload.guild_ids, (guildId) => updateFeatures(guildId, add, remove, true))
          yield* audit("bulk.update_guild_features", "guild", "0", {
            guild_count: String(payload.guild_ids.length),
            failed_count: String(result.failed.length),
            add_features: add.join(","),
            remove_features: remove.join(",")
          })
          return result
        }))
  })))

export const AdminGuildsHttp = perRequestMiddlewaresOnly(AdminGuildsHandlers).pipe(
  Layer.provide([AdminGuildsRepo.layer, VanityUrls.layer, AuthorMessagesRepo.layer])
)
