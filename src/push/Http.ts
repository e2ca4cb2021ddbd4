import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { unauthorized, unknown } from "../model/Errors.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { normalizeKey } from "./Keys.ts"
import { PushRepo } from "./Repo.ts"

const PushHandlers = HttpApiBuilder.group(Api, "push", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const repo = yield* PushRepo
    return handlers
      .handle("subscribe", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const id = yield* repo.subscribe(me.id, me.session.tokenHash, {
            endpoint: payload.endpoint,
            p256dh: normalizeKey(payload.keys.p256dh),
            auth: normalizeKey(payload.keys.auth),
            userAgent: payload.user_agent ?? null
          })
          if (id === undefined) return yield* unauthorized()
          return { subscription_id: id }
        }))
      .handle("list", () =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const stored = yield* repo.list(me.id)
          return { subscriptions: stored.map((s) => ({ subscription_id: s.id, user_agent: s.userAgent })) }
        }))
      .handle("remove", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          // Someone else's id reads exactly like an unknown one.
          if (!(yield* repo.remove(me.id, params.subscription_id))) return yield* unknown("PUSH_SUBSCRIPTION")
          return { success: true as const }
        }))
  })))

/** The push subscription routes, with their rate limiting (built here, as the auth routes do). */
export const PushHttp = perRequestMiddlewaresOnly(PushHandlers).pipe(Layer.provide(RateLimitLive))
