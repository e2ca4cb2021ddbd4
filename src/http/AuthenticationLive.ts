import { Context, Effect, Layer, Option } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import type { HttpApiEndpoint } from "effect/http-api"
import type { unhandled } from "effect/Types"
import { Acl, holds, ROUTE_ACLS, routeKey } from "../admin/Acls.ts"
import { AdminRepo } from "../admin/Repo.ts"
import { Sessions } from "../auth/Sessions.ts"
import { BotTokens, looksLikeBotToken } from "../oauth2/BotTokens.ts"
import { type Grant, OAuth2Grants } from "../oauth2/Grants.ts"
import { tokenHash } from "../platform/Crypto.ts"
import { UserId } from "../model/Ids.ts"
import { UsersRepo } from "../users/Repo.ts"
import {
  type AcceptedCredentials,
  AdminAuthentication,
  type CredentialKind,
  Credentials,
  CurrentOperator,
  CurrentUser,
  parseAuthorization,
  UserAuthentication
} from "./Authentication.ts"
import {
  accessDenied,
  type Forbidden,
  invalidToken,
  missingOAuthScope,
  missingPermissions,
  type Unauthorized,
  unauthorized
} from "../model/Errors.ts"

type Answer = Effect.Effect<HttpServerResponse.HttpServerResponse, Unauthorized | Forbidden | unhandled>

/**
 * What a route does with each kind of credential, decided once per endpoint
 * from its declaration: accept it, refuse it at once (401: not a credential of
 * this route's kind), or resolve it and then refuse the identity (403
 * ACCESS_DENIED: a valid bot or OAuth2 token on a person's own route). The
 * production service answers so (its auth documentation and middlewares).
 */
type Treatment = "accept" | "unauthorized" | "invalidToken" | "denyAfterResolving"

const treatments = (
  { kinds }: AcceptedCredentials
): Readonly<Record<CredentialKind | "admin", Treatment>> => {
  const botOnly = kinds.length === 1 && kinds[0] === "bot"
  const bearerOnly = kinds.length === 1 && kinds[0] === "bearer"
  const otherwise: Treatment = botOnly ? "invalidToken" : bearerOnly ? "unauthorized" : "denyAfterResolving"
  return {
    session: kinds.includes("session") ? "accept" : botOnly ? "invalidToken" : "unauthorized",
    bot: kinds.includes("bot") ? "accept" : otherwise,
    bearer: kinds.includes("bearer") ? "accept" : otherwise,
    admin: botOnly ? "invalidToken" : "unauthorized"
  }
}

const declaredCredentials = (endpoint: HttpApiEndpoint.Top): AcceptedCredentials =>
  Option.getOrThrowWith(
    Context.getOption(endpoint.annotations, Credentials),
    () => new Error(`${endpoint.method} ${endpoint.path} is behind UserAuthentication but declares no Credentials`)
  )

/**
 * Session tokens, bot tokens (`Bot <token>`, as the bot user) and OAuth2 access
 * tokens (`Bearer <token>`, as the person who granted it), each only where the
 * endpoint's `Credentials` accept it.
 */
export const UserAuthenticationLive = Layer.effect(
  UserAuthentication,
  Effect.gen(function*() {
    const sessions = yield* Sessions
    const bots = yield* BotTokens
    const grants = yield* OAuth2Grants
    // A plain middleware reading the header itself: the security-scheme machinery
    // (a schema decode of all headers per request) halved the throughput of user routes.
    // Unnamed: Effect.fn's span and call-site capture (about 4 µs a call) cost a tenth of a request here (npm run bench).
    // The declaration is read when the route is built; a request only compares.
    return UserAuthentication.of((httpEffect, { endpoint }) => {
      const accepted = declaredCredentials(endpoint)
      const treatment = treatments(accepted)
      const scope = accepted.scope
      const admit = (user: CurrentUser["Service"] | undefined, kind: CredentialKind): Answer =>
        user === undefined
          ? Effect.fail(unauthorized())
          : treatment[kind] === "accept"
          ? Effect.provideService(httpEffect, CurrentUser, user)
          : Effect.fail(accessDenied())
      return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request): Answer => {
        const parsed = parseAuthorization(request.headers.authorization ?? "")
        if (parsed === undefined) return Effect.fail(unauthorized())
        const refusal = treatment[parsed.scheme]
        if (refusal === "unauthorized") return Effect.fail(unauthorized())
        if (refusal === "invalidToken") return Effect.fail(invalidToken())
        switch (parsed.scheme) {
          case "session":
            return Effect.flatMap(sessions.resolve(parsed.secret), (session): Answer =>
              admit(session === undefined ? undefined : { id: session.userId, session }, "session"))
          case "bot":
            return Effect.flatMap(bots.resolve(parsed.secret), (bot): Answer => admit(bot, "bot"))
          case "bearer":
            return Effect.flatMap(grants.access(parsed.secret), (grant): Answer =>
              grant !== undefined && refusal === "accept" && scope !== undefined && !grant.scopes.includes(scope)
                ? Effect.fail(missingOAuthScope(scope))
                : admit(grant === undefined ? undefined : bearerUser(grant, parsed.secret), "bearer"))
          case "admin":
            return Effect.fail(unauthorized())
        }
      })
    })
  })
)

/** The person who granted an access token, acting through it. */
const bearerUser = (grant: Grant, secret: string): CurrentUser["Service"] => {
  const id = UserId.make(grant.userId)
  return { id, session: { userId: id, tokenHash: tokenHash(secret) }, grant }
}

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
    return AdminAuthentication.of((httpEffect, { endpoint }) => {
      // A route missing from the table is nobody's: refused, never open.
      const needed = ROUTE_ACLS.get(routeKey(endpoint.method, endpoint.path))
      return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        resolve(request.headers.authorization ?? "").pipe(
          Effect.filterOrFail((operator) => needed !== undefined && holds(operator.acls, needed), missingPermissions),
          Effect.flatMap((operator) => Effect.provideService(httpEffect, CurrentOperator, operator))
        ))
    })
  })
)
