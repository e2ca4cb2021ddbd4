import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { livenessProbe, readinessProbe } from "../../shards/Readiness.ts"

export const HealthHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "health", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const alive = yield* livenessProbe
    const ready = yield* readinessProbe
    return handlers.handle("health", () => alive).handle("ready", () => ready)
  }))))
