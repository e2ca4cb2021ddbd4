import { Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { unauthorized } from "../model/Errors.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { UsersRepo } from "../users/Repo.ts"
import { type UserRow } from "../model/Users.ts"
import { Applications } from "./Applications.ts"
import { type ClientCredentials, OAuth2Clients } from "./Clients.ts"
import { Consent } from "./Consent.ts"
import { OAuth2Grants } from "./Grants.ts"
import { authorizedView, summaryView } from "./Views.ts"

const seconds = (date: Date) => Math.floor(date.getTime() / 1000)

/** The address, only with the `email` scope. */
const emailOf = (user: UserRow, scopes: ReadonlyArray<string>) =>
  scopes.includes("email") ? { email: user.email, verified: user.email_verified } : {}

/** The user as a grant shows them. */
const grantedUser = (user: UserRow, scopes: ReadonlyArray<string>) => ({
  id: user.id,
  username: user.username,
  discriminator: user.discriminator,
  global_name: user.global_name,
  avatar: user.avatar,
  avatar_color: null,
  bot: user.bot,
  flags: Number(user.flags),
  ...emailOf(user, scopes)
})

const OAuth2ConsentHandlers = HttpApiBuilder.group(Api, "oauth2Consent", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const consent = yield* Consent
    const grants = yield* OAuth2Grants
    const applications = yield* Applications
    return handlers
      .handle("consent", ({ payload }) => Effect.flatMap(CurrentUser, (me) => consent.grant(me.id, payload)))
      .handle("authorizations", () =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const held = yield* grants.authorizations(me.id)
          return yield* Effect.forEach(held, (authorization) =>
            Effect.map(applications.find(authorization.applicationId), (row) => ({
              application: authorizedView(row),
              scopes: authorization.scopes,
              authorized_at: authorization.authorizedAt.toISOString()
            })))
        }))
  })))

const OAuth2TokensHandlers = HttpApiBuilder.group(Api, "oauth2Tokens", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const clients = yield* OAuth2Clients
    const grants = yield* OAuth2Grants
    const applications = yield* Applications
    const users = yield* UsersRepo

    const clientOf = (body: Omit<ClientCredentials, "authorization">) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        clients.authenticate({ ...body, authorization: request.headers.authorization }))

    /** The grant of the request's access token (its routes accept nothing else), with its user. */
    const bearer = Effect.gen(function*() {
      const { grant } = yield* CurrentUser
      const user = grant === undefined ? undefined : yield* users.findById(grant.userId)
      if (grant === undefined || user === undefined) return yield* unauthorized()
      return { grant, user }
    })

    return handlers
      .handle("token", ({ payload }) =>
        Effect.flatMap(clientOf(payload), (applicationId) =>
          payload.grant_type === "authorization_code"
            ? grants.redeemCode(applicationId, payload.code, payload.redirect_uri, payload.code_verifier)
            : grants.refresh(applicationId, payload.refresh_token)))
      .handle("revoke", ({ payload }) => Effect.flatMap(clientOf(payload), (applicationId) => grants.revoke(applicationId, payload.token)))
      .handle("introspect", ({ payload }) =>
        Effect.gen(function*() {
          const applicationId = yield* clientOf(payload)
          const found = yield* grants.inspect(applicationId, payload.token)
          if (found === undefined) return { active: false }
          const { grant, refresh } = found
          const user = yield* users.findById(grant.userId)
          return {
            active: true,
            scope: grant.scopes.join(" "),
            client_id: grant.applicationId,
            sub: grant.userId,
            ...(user === undefined ? {} : { username: user.username }),
            token_type: refresh ? "refresh_token" : "Bearer",
            iat: seconds(grant.createdAt),
            ...(refresh ? {} : { exp: seconds(grant.expiresAt) })
          }
        }))
      .handle("me", () =>
        Effect.gen(function*() {
          const { grant, user } = yield* bearer
          const application = summaryView(yield* applications.find(grant.applicationId))
          return {
            application,
            scopes: grant.scopes,
            expires: grant.expiresAt.toISOString(),
            ...(grant.scopes.includes("identify") ? { user: grantedUser(user, grant.scopes) } : {})
          }
        }))
      .handle("userinfo", () =>
        Effect.map(bearer, ({ grant, user }) => ({
          sub: user.id,
          id: user.id,
          username: user.username,
          discriminator: user.discriminator,
          global_name: user.global_name,
          avatar: user.avatar,
          flags: Number(user.flags),
          ...emailOf(user, grant.scopes)
        })))
  })))

/** The consent and token routes, with their rate limiting. */
export const OAuth2Http = Layer.mergeAll(perRequestMiddlewaresOnly(OAuth2ConsentHandlers), perRequestMiddlewaresOnly(OAuth2TokensHandlers)).pipe(
  Layer.provide(Consent.layer),
  Layer.provide(RateLimitLive)
)
