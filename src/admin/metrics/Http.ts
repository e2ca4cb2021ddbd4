import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { metricsResponse, MetricsExporter } from "../../platform/MetricsExport.ts"

export const MetricsHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "metrics", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const answer = metricsResponse((yield* MetricsExporter).scrape)
    return handlers.handle("metrics", () => answer)
  }))))
