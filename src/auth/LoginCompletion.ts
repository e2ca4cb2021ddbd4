import { Context, Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import { requestClient } from "./Client.ts"
import { rememberIp } from "./KnownIps.ts"
import { Sessions } from "./Sessions.ts"

/**
 * The last step of every way in (password, MFA, WebAuthn, reset, revert,
 * handoff, SSO): a new session for the user. Logging in cancels a scheduled
 * account deletion, re-enables a disabled account, and makes the client's
 * address a known one (IP authorization).
 */
export class LoginCompletion extends Context.Service<LoginCompletion, {
  readonly finish: (userId: string) => Effect.Effect<{ token: string; user_id: string }, never, HttpServerRequest.HttpServerRequest>
}>()("guildhall/LoginCompletion") {
  static readonly layer = Layer.effect(
    LoginCompletion,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const sessions = yield* Sessions
      return LoginCompletion.of({
        finish: Effect.fn("LoginCompletion.finish")(function*(userId) {
          yield* sql`UPDATE users SET deletion_scheduled_at = NULL, disabled_at = NULL
                     WHERE id = ${userId} AND (deletion_scheduled_at IS NOT NULL OR disabled_at IS NOT NULL)`.pipe(Effect.orDie)
          const client = yield* requestClient
          yield* rememberIp(sql, userId, client.ip)
          const token = yield* sessions.create(userId, client)
          return { token, user_id: userId }
        })
      })
    })
  )
}
