import { Effect, Layer } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import type { unhandled } from "effect/Types"
import { Acl, holds } from "../admin/Acls.ts"
import { AdminRepo } from "../admin/Repo.ts"
import { Sessions } from "../auth/Sessions.ts"
import { BotTokens, looksLikeBotToken } from "../oauth2/BotTokens.ts"
import { UsersRepo } from "../users/Repo.ts"
import { AdminAuthentication, CurrentOperator, CurrentUser, parseAuthorization, UserAuthentication } from "./Authentication.ts"
import { type Forbidden, missingPermissions, type Unauthorized, unauthorized } from "../model/Errors.ts"

type Answer = Effect.Effect<HttpServerResponse.HttpServerResponse, Unauthorized | unhandled>

/**
 * Session tokens, and bot tokens (`Bot <token>`) as the bot user. OAuth2 bearer
 * tokens carry scopes, so only the routes made for them (src/oauth2) read those.
 */
export const UserAuthenticationLive = Layer.effect(
  UserAuthentication,
  Effect.gen(function*() {
    const sessions = yield* Sessions
    const bots = yield* BotTokens
    // A plain middleware reading the header itself: the security-scheme machinery
    // (a schema decode of all headers per request) halved the throughput of user routes.
    // Unnamed: Effect.fn's span and call-site capture (about 4 µs a call) cost a tenth of a request here (npm run bench).
    return UserAuthentication.of((httpEffect) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request): Answer => {
        const parsed = parseAuthorization(request.headers.authorization ?? "")
        if (parsed === undefined) return Effect.fail(unauthorized())
        if (parsed.scheme === "session") {
          return Effect.flatMap(sessions.resolve(parsed.secret), (session): Answer =>
            session === undefined
              ? Effect.fail(unauthorized())
              : Effect.provideService(httpEffect, CurrentUser, { id: session.userId, session }))
        }
        if (parsed.scheme !== "bot") return Effect.fail(unauthorized())
        return Effect.flatMap(bots.resolve(parsed.secret), (bot): Answer =>
          bot === undefined ? Effect.fail(unauthorized()) : Effect.provideService(httpEffect, CurrentUser, bot))
      }))
  })
)

/**
 * The user a raw token authenticates, or undefined: a session token, a bot
 * token with its `Bot ` prefix, or without it (discord.js sends it so in the
 * gateway's IDENTIFY). What HTTP accepts, for the gateway.
 */
export const resolveToken = (token: string): Effect.Effect<CurrentUser["Service"] | undefined, never, Sessions | BotTokens> =>
  Effect.gen(function*() {
    const bot = token.startsWith("Bot ") ? token.slice(4).trim() : looksLikeBotToken(token) ? token : undefined
    if (bot !== undefined) return yield* (yield* BotTokens).resolve(bot)
    const session = yield* (yield* Sessions).resolve(token)
    return session === undefined ? undefined : { id: session.userId, session }
  })

/** `Admin <key>`, or a user session whose ACLs open the admin API (conventions.md). */
export const AdminAuthenticationLive = Layer.effect(
  AdminAuthentication,
  Effect.gen(function*() {
    const admin = yield* AdminRepo
    const sessions = yield* Sessions
    const users = yield* UsersRepo
    const resolve = Effect.fn("AdminAuthentication.resolve")(function*(
      value: string
    ): Effect.fn.Return<{ id: string; acls: ReadonlySet<string> }, Unauthorized | Forbidden> {
      const parsed = parseAuthorization(value)
      if (parsed === undefined || parsed.scheme === "bot" || parsed.scheme === "bearer") return yield* unauthorized()
      if (parsed.scheme === "admin") {
        const key = yield* admin.keyBySecret(parsed.secret)
        if (key === undefined || key.expired) return yield* unauthorized()
        return { id: key.key_id, acls: new Set(key.acls) }
      }
      const session = yield* sessions.resolve(parsed.secret)
      if (session === undefined) return yield* unauthorized()
      const user = yield* users.findById(session.userId)
      const acls = new Set(user?.acls ?? [])
      if (!holds(acls, Acl.authenticate)) return yield* missingPermissions()
      return { id: session.userId, acls }
    })
    return AdminAuthentication.of((httpEffect) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        Effect.flatMap(resolve(request.headers.authorization ?? ""), (operator) =>
          Effect.provideService(httpEffect, CurrentOperator, operator))))
  })
)
