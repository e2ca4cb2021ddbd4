import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Actors } from "../guilds/Actors.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { unauthorized } from "../http/Errors.ts"
import { toUserPrivate, UsersRepo } from "./Repo.ts"

export const UsersHttp = HttpApiBuilder.group(Api, "users", (handlers) =>
  Effect.gen(function*() {
    const users = yield* UsersRepo
    const actors = yield* Actors
    return handlers
      .handle("me", () =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const row = yield* users.findById(me.id)
          if (row === undefined) return yield* unauthorized()
          return toUserPrivate(row)
        }))
      .handle("myGuilds", ({ query }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const ids = yield* actors.bounded(
            actors.user(me.id).ListGuilds({ before: query.before, after: query.after, limit: query.limit ?? 200 })
          )
          // A guild that vanished between the two reads is left out rather than failing the list.
          const guilds = yield* Effect.forEach(
            ids,
            (id) => actors.bounded(actors.guild(id).Get({ userId: me.id })).pipe(Effect.option),
            { concurrency: 16 }
          )
          return guilds.flatMap((g) => (g._tag === "Some" ? [g.value] : []))
        }))
  }))
