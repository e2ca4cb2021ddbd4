import { Effect, Layer } from "effect"
import { legalHoldCheck } from "../../messages/LegalHoldCheck.ts"
import { SqlClient } from "effect/sql"
import { HttpApiBuilder } from "effect/http-api"
import * as Guild from "../../../shards/guild/operations/Guild.ts"
import * as Settings from "../../../shards/guild/operations/Settings.ts"
import { Permission } from "../../model/Permissions.ts"
import { Sudo } from "../../auth/Sudo.ts"
import { Api } from "../../http/Api.ts"
import { CurrentUser } from "../../http/Authentication.ts"
import { invalidField } from "../../model/Errors.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { RateLimitLive } from "../../ratelimit/RateLimitLive.ts"
import { Actors } from "../Actors.ts"
import { auditReason } from "../AuditReason.ts"
import { VanityUrls } from "../VanityUrls.ts"
import { CarriedId, type GuildId } from "../../model/Ids.ts"

const GuildManagementHandlers = HttpApiBuilder.group(Api, "guildManagement", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const sudo = yield* Sudo
    const vanity = yield* VanityUrls
    const holds = legalHoldCheck(yield* SqlClient.SqlClient)

    /** Refused before any password is checked: only the owner gets as far as the proof. */
    const requireOwner = (guildId: GuildId, userId: string) => actors.read(guildId, Guild.ownerOnly, {}, userId)

    const toggle = (guildId: GuildId, feature: Settings.ToggledFeature, enabled: boolean) =>
      Effect.gen(function*() {
        const me = yield* CurrentUser
        const reason = yield* auditReason
        return yield* actors.write(guildId, Settings.toggleFeature, { feature, enabled }, { actorId: me.id, reason })
      })

    return handlers
      .handle("transferOwnership", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* requireOwner(params.guild_id, me.id)
          yield* sudo.require(me, { password: payload.password })
          const reason = yield* auditReason
          return yield* actors.write(params.guild_id, Guild.transferOwnership, { newOwnerId: payload.new_owner_id }, {
            actorId: me.id,
            reason
          })
        }))
      .handle("delete", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* requireOwner(params.guild_id, me.id)
          yield* sudo.require(me, payload)
          yield* holds.refuseHeldIn({ guildId: params.guild_id })
          const deleted = yield* actors.write(params.guild_id, Guild.deleteGuild, {}, { actorId: me.id })
          // Postgres no longer lists the memberships; the user actors hold them in memory until told.
          yield* Effect.forEach(
            deleted.memberIds,
            // The guild's members as its actor held them.
            (userId) => actors.bounded(actors.user(CarriedId.UserId.make(userId)).Left({ guildId: params.guild_id })).pipe(Effect.ignore),
            { concurrency: 16, discard: true }
          )
        }))
      .handle("detachedBanner", ({ params, payload }) => toggle(params.guild_id, "DETACHED_BANNER", payload.enabled))
      .handle("flexibleNames", ({ params, payload }) =>
        toggle(params.guild_id, "TEXT_CHANNEL_FLEXIBLE_NAMES", payload.enabled))
      .handle("vanityUrl", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const code = yield* actors.read(params.guild_id, Settings.vanityCode, { now: Date.now() }, me.id)
          return { code, uses: code === null ? 0 : yield* vanity.uses(params.guild_id) }
        }))
      .handle("updateVanityUrl", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const code = payload.code ?? null
          // Whether a code is taken is for those who may set one.
          const manageGuild = Permission.MANAGE_GUILD.toString()
          yield* actors.read(params.guild_id, Guild.viewerPermissions, { wanted: manageGuild, now: Date.now() }, me.id)
          if (code !== null) {
            const holder = yield* vanity.holder(code)
            if (holder !== undefined && holder !== params.guild_id) {
              return yield* invalidField("code", "VANITY_URL_CODE_TAKEN", "This vanity URL is taken")
            }
          }
          const reason = yield* auditReason
          const saved = yield* actors.write(params.guild_id, Settings.setVanityCode, { code }, { actorId: me.id, reason })
          return { code: saved }
        }))
  })))

/** Ownership, deletion, feature toggles and the vanity URL of a guild, with the rate limits of the proofs. */
export const GuildManagementHttp = perRequestMiddlewaresOnly(GuildManagementHandlers).pipe(Layer.provide([RateLimitLive, VanityUrls.layer]))
