import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Reads from "../../shards/guild/Reads.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { unauthorized } from "../http/Errors.ts"
import { jsonResponse } from "../http/Common.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { toUserPartial, UsersRepo } from "../users/Repo.ts"
import { Actors } from "./Actors.ts"

export const GuildsHttp = HttpApiBuilder.group(Api, "guilds", (handlers) =>
  Effect.gen(function*() {
    const actors = yield* Actors
    const users = yield* UsersRepo
    const snowflakes = yield* Snowflakes
    const member = (guildId: string, userId: string, targetId: string) =>
      actors.readGuild(guildId, Reads.member(userId, targetId), (guild) => guild.GetMember({ userId, targetId }))

    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const owner = yield* users.findById(me.id)
          if (owner === undefined) return yield* unauthorized()
          const guildId = snowflakes.next()
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
        Effect.flatMap(CurrentUser, (me) =>
          actors.bounded(actors.guild(params.guild_id).Update({
            operationId: `guild-update:${snowflakes.next()}`,
            userId: me.id,
            patch: payload
          }))))
      .handle("members", ({ params, query }) =>
        Effect.flatMap(CurrentUser, (me) => {
          const page = { userId: me.id, limit: query.limit ?? 1, after: query.after }
          return actors.readGuild(params.guild_id, Reads.members(page.userId, page.limit, page.after), (guild) => guild.ListMembers(page))
        }))
      .handle("myMember", ({ params }) => Effect.flatMap(CurrentUser, (me) => member(params.guild_id, me.id, me.id)))
      .handle("member", ({ params }) => Effect.flatMap(CurrentUser, (me) => member(params.guild_id, me.id, params.user_id)))
  }))
