import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Sudo } from "../auth/Sudo.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { unauthorized } from "../model/Errors.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { UsersRepo } from "../users/Repo.ts"
import { toUserPartial } from "../model/Users.ts"
import { Applications, unknownApplication } from "./Applications.ts"
import { BotProfiles } from "./BotProfiles.ts"
import { BotTokens } from "./BotTokens.ts"
import { ApplicationRemoval } from "./Removal.ts"
import { ApplicationsRepo } from "./Repo.ts"
import { applicationView, botProfileView, botView, meView, publicView } from "./Views.ts"

const ApplicationsHandlers = HttpApiBuilder.group(Api, "applications", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const applications = yield* Applications
    const repo = yield* ApplicationsRepo
    const profiles = yield* BotProfiles
    const bots = yield* BotTokens
    const users = yield* UsersRepo
    const sudo = yield* Sudo
    const removal = yield* ApplicationRemoval

    const ownApplication = (id: string) => Effect.flatMap(CurrentUser, (me) => applications.owned(me.id, id))

    const listOf = (ownerId: string) => Effect.map(repo.ownedBy(ownerId), (rows) => rows.map((row) => applicationView(row)))

    const botApplication = (applicationId: string) =>
      Effect.gen(function*() {
        const row = yield* applications.find(applicationId)
        const owner = yield* users.findById(row.owner_id)
        if (owner === undefined) return yield* unknownApplication()
        return meView(row, toUserPartial(owner))
      })

    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(CurrentUser, (me) => applications.create(me.id, payload)))
      .handle("mine", () =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          if (me.applicationId !== undefined) return yield* botApplication(me.applicationId)
          return yield* listOf(me.id)
        }))
      .handle("listMine", () => Effect.flatMap(CurrentUser, (me) => listOf(me.id)))
      .handle("botApplication", () =>
        Effect.flatMap(CurrentUser, (me) => me.applicationId === undefined ? Effect.fail(unauthorized()) : botApplication(me.applicationId)))
      .handle("get", ({ params }) => Effect.map(ownApplication(params.id), (row) => applicationView(row)))
      .handle("update", ({ params, payload }) =>
        Effect.gen(function*() {
          yield* ownApplication(params.id)
          const row = yield* applications.update(params.id, {
            name: payload.name,
            bot_public: payload.bot_public,
            bot_require_code_grant: payload.bot_require_code_grant,
            redirect_uris: payload.redirect_uris === null ? [] : payload.redirect_uris
          })
          return applicationView(row)
        }))
      .handle("delete", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const row = yield* applications.owned(me.id, params.id)
          yield* sudo.require(me, payload ?? {})
          yield* removal.remove(row.id)
        }))
      .handle("resetClientSecret", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const row = yield* applications.owned(me.id, params.id)
          yield* sudo.require(me, payload ?? {})
          return applicationView(row, { clientSecret: yield* applications.resetClientSecret(row.id) })
        }))
      .handle("updateBot", ({ params, payload }) =>
        Effect.gen(function*() {
          yield* profiles.update(yield* ownApplication(params.id), payload)
          return botProfileView(yield* applications.find(params.id))
        }))
      .handle("resetBotToken", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const row = yield* applications.owned(me.id, params.id)
          yield* sudo.require(me, payload ?? {})
          const token = yield* bots.reset(row.id)
          return { token, bot: botView(row) }
        }))
  })))

const PublicApplicationsHandlers = HttpApiBuilder.group(Api, "publicApplications", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const applications = yield* Applications
    return handlers.handle("get", ({ params }) => Effect.map(applications.find(params.id), publicView))
  })))

/** The application routes, with their rate limiting; removal reaches the guild actors. */
export const ApplicationsHttp = Layer.mergeAll(perRequestMiddlewaresOnly(ApplicationsHandlers), perRequestMiddlewaresOnly(PublicApplicationsHandlers)).pipe(
  Layer.provide(ApplicationRemoval.layer),
  Layer.provide(RateLimitLive)
)
