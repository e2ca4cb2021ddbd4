import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Discovery from "../../shards/guild/operations/Discovery.ts"
import * as Guild from "../../shards/guild/operations/Guild.ts"
import { Permission } from "../model/Permissions.ts"
import { AppConfig } from "../platform/Config.ts"
import { Actors } from "../guilds/Actors.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { BadRequest, Forbidden, NotFound, unauthorized } from "../model/Errors.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { UsersRepo } from "../users/Repo.ts"
import { guildRoom } from "../guilds/GuildRoom.ts"
import { toUserPartial } from "../model/Users.ts"
import { CATEGORIES } from "./Categories.ts"
import { DiscoveryRepo } from "./Repo.ts"
import { AUDIT_REASON_HEADER, decodeAuditReason } from "../guilds/AuditReason.ts"
import type { GuildId } from "../model/Ids.ts"

const MEMBER = "0"
const MANAGE_GUILD = Permission.MANAGE_GUILD.toString()

const notFound = () => new NotFound({ code: "DISCOVERY_APPLICATION_NOT_FOUND", message: "The guild has not applied to discovery" })

const DiscoveryHandlers = HttpApiBuilder.group(Api, "discovery", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const repo = yield* DiscoveryRepo
    const users = yield* UsersRepo
    const roomFor = yield* guildRoom
    const { discoveryMinMembers } = yield* AppConfig

    /** Membership (and `wanted`) as the guild's actor sees it: 403 for strangers and the powerless. */
    const requireHolder = (guildId: GuildId, userId: string, wanted: string) =>
      actors.read(guildId, Guild.viewerPermissions, { wanted, now: Date.now() }, userId)

    const requireEligible = (guildId: string) =>
      Effect.flatMap(repo.memberCount(guildId), (count) =>
        count >= discoveryMinMembers
          ? Effect.void
          : Effect.fail(new BadRequest({
            code: "DISCOVERY_INSUFFICIENT_MEMBERS",
            message: `A guild needs ${discoveryMinMembers} members to apply to discovery`
          })))

    return handlers
      .handle("categories", () => Effect.succeed(CATEGORIES))
      .handle("search", ({ query }) => repo.search(query))
      .handle("join", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          if (!(yield* repo.isListed(params.guild_id))) {
            return yield* new Forbidden({ code: "DISCOVERY_NOT_DISCOVERABLE", message: "This guild is not listed in discovery" })
          }
          const user = yield* users.findById(me.id)
          if (user === undefined) return yield* unauthorized()
          yield* roomFor(me.id, params.guild_id)
          yield* actors.write(params.guild_id, Discovery.joinFromDiscovery, { user: toUserPartial(user) }, { actorId: me.id })
          // The user actor learns of the membership; Postgres already holds it if this is lost.
          yield* actors.user(me.id).Joined({ guildId: params.guild_id }).pipe(
            Effect.timeout("2 seconds"),
            Effect.ignore,
            Effect.forkDetach
          )
        }))
      .handle("status", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* requireHolder(params.guild_id, me.id, MEMBER)
          const count = yield* repo.memberCount(params.guild_id)
          return {
            application: (yield* repo.application(params.guild_id)) ?? null,
            eligible: count >= discoveryMinMembers,
            min_member_count: discoveryMinMembers
          }
        }))
      .handle("apply", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* requireHolder(params.guild_id, me.id, MANAGE_GUILD)
          yield* requireEligible(params.guild_id)
          if (!(yield* repo.apply(params.guild_id, payload))) {
            return yield* new BadRequest({ code: "DISCOVERY_ALREADY_APPLIED", message: "The guild has applied already" })
          }
          const application = yield* repo.application(params.guild_id)
          return application === undefined ? yield* notFound() : application
        }))
      .handle("amend", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* requireHolder(params.guild_id, me.id, MANAGE_GUILD)
          const amended = yield* repo.amend(params.guild_id, payload)
          if (amended !== undefined) return amended
          return yield* ((yield* repo.application(params.guild_id)) === undefined
            ? notFound()
            : new BadRequest({ code: "DISCOVERY_APPLICATION_ALREADY_REVIEWED", message: "The application was reviewed already" }))
        }))
      .handle("withdraw", ({ params, request }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* requireHolder(params.guild_id, me.id, MANAGE_GUILD)
          if ((yield* repo.application(params.guild_id)) === undefined) return yield* notFound()
          // Through the actor: a listed guild loses its DISCOVERABLE feature with the listing.
          yield* actors.write(params.guild_id, Discovery.withdrawFromDiscovery, {}, {
            actorId: me.id,
            reason: decodeAuditReason(request.headers[AUDIT_REASON_HEADER])
          })
        }))
  })))

/** The discovery routes, with the listing's repository. */
export const DiscoveryHttp = perRequestMiddlewaresOnly(DiscoveryHandlers).pipe(Layer.provide(DiscoveryRepo.layer))
