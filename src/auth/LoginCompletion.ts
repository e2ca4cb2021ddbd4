import { Context, Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import type { Forbidden } from "../model/Errors.ts"
import { toUserPartial, type UserPartialResponse } from "../model/Users.ts"
import { UsersRepo } from "../users/Repo.ts"
import { requestClient } from "./Client.ts"
import { rememberIp } from "./KnownIps.ts"
import { Sessions } from "./Sessions.ts"
import { checkStanding } from "./Standing.ts"

/**
 * The last step of every way in (password, MFA, WebAuthn, reset, revert,
 * handoff, SSO): a new session for the user. Logging in cancels a scheduled
 * account deletion, re-enables a disabled account, and makes the client's
 * address a known one (IP authorization). An account an operator keeps out
 * (Standing.ts) gets no session. The answer carries the user, as
 * every production answer with a new session does (AuthTokenWithUserIdResponse).
 */
export interface NewSession {
  readonly token: string
  readonly user_id: string
  readonly user: UserPartialResponse
}

export class LoginCompletion extends Context.Service<LoginCompletion, {
  readonly finish: (userId: string) => Effect.Effect<NewSession, Forbidden, HttpServerRequest.HttpServerRequest>
}>()("guildhall/LoginCompletion") {
  static readonly layer = Layer.effect(
    LoginCompletion,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const sessions = yield* Sessions
      const users = yield* UsersRepo
      return LoginCompletion.of({
        finish: Effect.fn("LoginCompletion.finish")(function*(userId) {
          yield* checkStanding(sql, userId)
          yield* sql`UPDATE users SET deletion_scheduled_at = NULL, disabled_at = NULL
                     WHERE id = ${userId} AND (deletion_scheduled_at IS NOT NULL OR disabled_at IS NOT NULL)`.pipe(Effect.orDie)
          const client = yield* requestClient
          yield* rememberIp(sql, userId, client.ip)
          const user = yield* users.findById(userId)
          // Every caller has just proven this user exists; one deleted since fails here as the
          // session's insert would (its foreign key).
          if (user === undefined) return yield* Effect.die(new Error(`login of a user that no longer exists: ${userId}`))
          const token = yield* sessions.create(userId, client)
          return { token, user_id: userId, user: toUserPartial(user) }
        })
      })
    })
  )
}
