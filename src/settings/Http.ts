import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { UserSettings } from "./Settings.ts"

const SettingsHandlers = HttpApiBuilder.group(Api, "settings", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const settings = yield* UserSettings
    return handlers
      .handle("get", () => Effect.flatMap(CurrentUser, (me) => settings.get(me.id)))
      .handle("update", ({ payload }) => Effect.flatMap(CurrentUser, (me) => settings.update(me.id, payload)))
  })))

/** The settings routes, with their rate limiting. */
export const SettingsHttp = perRequestMiddlewaresOnly(SettingsHandlers).pipe(Layer.provide(RateLimitLive))
