import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Bans from "../../shards/guild/operations/Bans.ts"
import { Actors } from "../guilds/Actors.ts"
import { auditReason } from "../guilds/AuditReason.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { unknown } from "../model/Errors.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { AuthorMessagesRepo } from "../messages/AuthorMessagesRepo.ts"
import { SqlClient } from "effect/sql"
import { UsersRepo } from "../users/Repo.ts"
import { toUserPartial } from "../model/Users.ts"

export const BansHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "bans", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const users = yield* UsersRepo
    const authorMessages = yield* AuthorMessagesRepo

    return handlers
      .handle("list", ({ params }) =>
        Effect.flatMap(CurrentUser, (me) => actors.read(params.guild_id, Bans.listBans, { now: Date.now() }, me.id)))
      .handle("ban", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const target = yield* users.findById(params.user_id)
          if (target === undefined) return yield* unknown("USER")
          const reason = payload.reason ?? null
          // The header names why for the audit log; without it, the ban's own reason does.
          const header = yield* auditReason
          const days = payload.delete_message_days ?? 0
          const messages = yield* authorMessages.forBan(params.guild_id, target.id, days)
          yield* actors.write(params.guild_id, Bans.banMember, {
            target: toUserPartial(target),
            reason,
            deleteMessageDays: days,
            durationSeconds: payload.ban_duration_seconds ?? 0,
            ...messages
          }, { actorId: me.id, reason: header ?? reason })
          // The user actor forgets the guild; Postgres already has no membership if this is lost.
          yield* actors.user(params.user_id).Left({ guildId: params.guild_id }).pipe(
            Effect.timeout("2 seconds"),
            Effect.ignore,
            Effect.forkDetach
          )
        }))
      .handle("unban", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const reason = yield* auditReason
          yield* actors.write(params.guild_id, Bans.unbanMember, { targetId: params.user_id }, { actorId: me.id, reason })
        }))
  })))).pipe(Layer.provide(AuthorMessagesRepo.layer))
