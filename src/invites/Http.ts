import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Invites from "../../shards/guild/operations/Invites.ts"
import { Actors } from "../guilds/Actors.ts"
import { auditReason } from "../guilds/AuditReason.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { DEFAULT_INVITE_MAX_AGE } from "../model/Invites.ts"
import { NotFound, unauthorized, unknown } from "../model/Errors.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { PackInvites } from "../packs/Invites.ts"
import { PacksRepo } from "../packs/Repo.ts"
import { UsersRepo } from "../users/Repo.ts"
import { guildRoom } from "../guilds/GuildRoom.ts"
import { toUserPartial } from "../model/Users.ts"
import { InviteLookup } from "./Lookup.ts"

const unknownInvite = () => new NotFound({ code: "UNKNOWN_INVITE", message: "Unknown invite" })

const InvitesHandlers = HttpApiBuilder.group(Api, "invites", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const users = yield* UsersRepo
    const roomFor = yield* guildRoom
    const lookup = yield* InviteLookup
    const packInvites = yield* PackInvites
    const guildOfChannel = (channelId: string) =>
      Effect.flatMap(lookup.guildOfChannel(channelId), (guildId) =>
        guildId === undefined ? Effect.fail(unknown("CHANNEL")) : Effect.succeed(guildId))

    return handlers
      .handle("channelList", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const guildId = yield* guildOfChannel(params.channel_id)
          return yield* actors.read(guildId, Invites.listChannelInvites, { channelId: params.channel_id, now: Date.now() }, me.id)
        }))
      .handle("create", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const guildId = yield* guildOfChannel(params.channel_id)
          const code = yield* lookup.newCode
          const reason = yield* auditReason
          return yield* actors.write(guildId, Invites.createInvite, {
            code,
            channelId: params.channel_id,
            maxAge: payload.max_age ?? DEFAULT_INVITE_MAX_AGE,
            maxUses: payload.max_uses ?? 0,
            temporary: payload.temporary ?? false,
            unique: payload.unique ?? false
          }, { actorId: me.id, reason })
        }))
      .handle("guildList", ({ params }) =>
        Effect.flatMap(CurrentUser, (me) => actors.read(params.guild_id, Invites.listGuildInvites, { now: Date.now() }, me.id)))
      .handle("join", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const guildId = yield* lookup.guildOfInvite(params.invite_code)
          if (guildId === undefined) {
            const installed = yield* packInvites.accept(params.invite_code, me.id)
            return installed ?? (yield* unknownInvite())
          }
          const user = yield* users.findById(me.id)
          if (user === undefined) return yield* unauthorized()
          yield* roomFor(me.id, guildId)
          const joined = yield* actors.write(guildId, Invites.joinByInvite, {
            code: params.invite_code,
            user: toUserPartial(user)
          }, { actorId: me.id })
          // The user actor learns of the membership; Postgres already holds it if this is lost.
          yield* actors.user(me.id).Joined({ guildId }).pipe(Effect.timeout("2 seconds"), Effect.ignore, Effect.forkDetach)
          return joined
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const guildId = yield* lookup.guildOfInvite(params.invite_code)
          if (guildId === undefined) {
            // Not a guild's: a pack's, which carries no audit log and no guild audience to tell.
            return (yield* packInvites.revoke(params.invite_code, me.id)) ? undefined : yield* unknownInvite()
          }
          const reason = yield* auditReason
          yield* actors.write(guildId, Invites.deleteInvite, { code: params.invite_code }, { actorId: me.id, reason })
        }))
  })))

const PublicInvitesHandlers = HttpApiBuilder.group(Api, "publicInvites", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const lookup = yield* InviteLookup
    const packInvites = yield* PackInvites
    return handlers.handle("get", ({ params }) =>
      Effect.gen(function*() {
        const guildId = yield* lookup.guildOfInvite(params.invite_code)
        if (guildId === undefined) return (yield* packInvites.show(params.invite_code)) ?? (yield* unknownInvite())
        // Anyone may look: no viewer is needed to read an invite.
        return yield* actors.read(guildId, Invites.getInvite, { code: params.invite_code, now: Date.now() }, "0")
      }))
  })))

/** The invite routes; they find the guild of a channel or code through InviteLookup, or else a pack invite. */
export const InvitesHttp = Layer.mergeAll(perRequestMiddlewaresOnly(InvitesHandlers), perRequestMiddlewaresOnly(PublicInvitesHandlers)).pipe(
  Layer.provide(Layer.mergeAll(InviteLookup.layer, PackInvites.layer)),
  Layer.provide(PacksRepo.layer)
)
