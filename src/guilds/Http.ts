import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Reads from "../../shards/guild/Reads.ts"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { unauthorized } from "../model/Errors.ts"
import { jsonResponse } from "../http/SharedBodies.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { UsersRepo } from "../users/Repo.ts"
import { guildRoom } from "./GuildRoom.ts"
import { toUserPartial } from "../model/Users.ts"
import * as Members from "../../shards/guild/operations/Members.ts"
import * as Settings from "../../shards/guild/operations/Settings.ts"
import { Actors } from "./Actors.ts"
import { auditReason } from "./AuditReason.ts"
import { GuildId, type UserId } from "../model/Ids.ts"

export const GuildsHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "guilds", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const users = yield* UsersRepo
    const snowflakes = yield* Snowflakes
    const roomFor = yield* guildRoom
    const member = (guildId: GuildId, viewerId: string, targetId: UserId) =>
      actors.read(guildId, Members.getMember, { targetId }, viewerId)

    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const owner = yield* users.findById(me.id)
          if (owner === undefined) return yield* unauthorized()
          yield* roomFor(me.id)
          const guildId = GuildId.make(snowflakes.next())
          return yield* actors.bounded(actors.guild(guildId).Create({
            operationId: `guild-create:${guildId}`,
            channelId: snowflakes.next(),
            owner: toUserPartial(owner),
            name: payload.name,
            icon: payload.icon ?? null
          }))
        }))
      .handle("get", ({ params }) =>
        Effect.flatMap(CurrentUser, (me) =>
          Effect.map(
            actors.readGuild(params.guild_id, Reads.view(me.id), (guild) => guild.View({ userId: me.id })),
            jsonResponse
          )))
      .handle("update", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const reason = yield* auditReason
          return yield* actors.writeAsResponse(params.guild_id, Settings.updateGuild, { patch: payload }, { actorId: me.id, reason })
        }))
      .handle("members", ({ params, query }) =>
        Effect.flatMap(CurrentUser, (me) =>
          actors.read(params.guild_id, Members.listMembers, { limit: query.limit ?? 1, after: query.after }, me.id)))
      .handle("myMember", ({ params }) => Effect.flatMap(CurrentUser, (me) => member(params.guild_id, me.id, me.id)))
      .handle("member", ({ params }) => Effect.flatMap(CurrentUser, (me) => member(params.guild_id, me.id, params.user_id)))
  }))))
