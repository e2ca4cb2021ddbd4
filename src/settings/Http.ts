import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { UserActors } from "../guilds/UserActors.ts"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { NotFound, unauthorized } from "../model/Errors.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { getSettings, updateSettings } from "../../shards/user/operations/Settings.ts"

/** An account gone meanwhile signs its session out. */
const signedOut = (e: unknown) => e instanceof NotFound

/** GET and PATCH /users/@me/settings, through the user's actor (shards/user/operations/Settings.ts). */
const SettingsHandlers = HttpApiBuilder.group(Api, "settings", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const users = yield* UserActors
    return handlers
      .handle("get", () =>
        Effect.flatMap(CurrentUser, (me) => Effect.catchIf(users.readAsResponse(me.id, getSettings, {}), signedOut, () => unauthorized())))
      .handle("update", ({ payload }) =>
        Effect.flatMap(CurrentUser, (me) =>
          Effect.catchIf(users.writeAsResponse(me.id, updateSettings, { body: payload }, { actorId: me.id }), signedOut, () => unauthorized())))
  })))

/** The settings routes, with their rate limiting. */
export const SettingsHttp = perRequestMiddlewaresOnly(SettingsHandlers).pipe(Layer.provide(RateLimitLive))
