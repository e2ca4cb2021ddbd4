import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { unknown } from "../model/Errors.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { UsersRepo } from "../users/Repo.ts"
import { NotesRepo } from "./Repo.ts"

const NotesHandlers = HttpApiBuilder.group(Api, "notes", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const notes = yield* NotesRepo
    const users = yield* UsersRepo
    return handlers
      .handle("list", () => Effect.flatMap(CurrentUser, (me) => notes.list(me.id)))
      // No note on someone answers as the reference does: 404 UNKNOWN_USER.
      .handle("get", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const note = yield* notes.get(me.id, params.target_id)
          if (note === undefined) return yield* unknown("USER")
          return { note }
        }))
      .handle("set", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          if ((yield* users.findById(params.target_id)) === undefined) return yield* unknown("USER")
          const note = payload.note ?? ""
          yield* note.trim() === "" ? notes.remove(me.id, params.target_id) : notes.set(me.id, params.target_id, note)
        }))
  })))

/** The note routes, with their rate limiting. */
export const NotesHttp = perRequestMiddlewaresOnly(NotesHandlers).pipe(Layer.provide(RateLimitLive))
