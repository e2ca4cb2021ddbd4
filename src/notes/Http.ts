import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { UserActors } from "../guilds/UserActors.ts"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { unknown } from "../model/Errors.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { UsersRepo } from "../users/Repo.ts"
import { getNote, listNotes, setNote } from "../../shards/user/operations/Notes.ts"

/** The user's notes on others, kept by their actor (shards/user/operations/Notes.ts). */
const NotesHandlers = HttpApiBuilder.group(Api, "notes", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const userActors = yield* UserActors
    const users = yield* UsersRepo
    return handlers
      .handle("list", () => Effect.flatMap(CurrentUser, (me) => userActors.readAsResponse(me.id, listNotes, {})))
      .handle("get", ({ params }) => Effect.flatMap(CurrentUser, (me) => userActors.read(me.id, getNote, { targetId: params.target_id })))
      .handle("set", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          if ((yield* users.findById(params.target_id)) === undefined) return yield* unknown("USER")
          yield* userActors.write(me.id, setNote, { targetId: params.target_id, note: payload.note ?? "" }, { actorId: me.id })
        }))
  })))

/** The note routes, with their rate limiting. */
export const NotesHttp = perRequestMiddlewaresOnly(NotesHandlers).pipe(Layer.provide(RateLimitLive))
