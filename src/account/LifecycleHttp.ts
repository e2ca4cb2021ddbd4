import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Sudo } from "../auth/Sudo.ts"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { AccountLifecycle } from "./Lifecycle.ts"

const AccountLifecycleHandlers = HttpApiBuilder.group(Api, "accountLifecycle", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const lifecycle = yield* AccountLifecycle
    const sudo = yield* Sudo
    return handlers
      .handle("disable", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* sudo.require(me, payload ?? {})
          yield* lifecycle.disable(me.id)
        }))
      .handle("delete", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* sudo.require(me, payload ?? {})
          yield* lifecycle.scheduleDeletion(me.id)
        }))
  })))

/** POST /users/@me/disable and /users/@me/delete, with their rate limiting. */
export const AccountLifecycleHttp = perRequestMiddlewaresOnly(AccountLifecycleHandlers).pipe(Layer.provide(RateLimitLive))
