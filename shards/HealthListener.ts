import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { createServer } from "node:http"
import type { Unavailable } from "../src/model/Errors.ts"
import type { Settings } from "../src/platform/Config.ts"
import { livenessProbe, readinessProbe } from "./Readiness.ts"

/** A probe's answer: 200 and its report, or 503 and the error object (`{code, message}`). */
const answer = <A>(probe: Effect.Effect<A, Unavailable>) =>
  probe.pipe(Effect.match({
    onSuccess: (report) => HttpServerResponse.jsonUnsafe(report),
    onFailure: ({ code, message }) => HttpServerResponse.jsonUnsafe({ code, message }, { status: 503 })
  }))

const probes = Layer.unwrap(Effect.gen(function*() {
  const alive = yield* livenessProbe
  const ready = yield* readinessProbe
  return Layer.mergeAll(HttpRouter.add("GET", "/_health", answer(alive)), HttpRouter.add("GET", "/_ready", answer(ready)))
}))

/**
 * A shard process has no HTTP server; with HEALTH_PORT set it answers
 * `/_health` (liveness) and `/_ready` (readiness: shards/Readiness.ts) there,
 * on SHARD_HOST, for Kubernetes probes. Nothing else is served.
 */
export const healthListener = (settings: Settings) =>
  Option.match(settings.healthPort, {
    onNone: () => Layer.empty,
    onSome: (port) =>
      HttpRouter.serve(probes, { disableLogger: true, disableListenLog: true }).pipe(
        Layer.provide(NodeHttpServer.layer(createServer, { port, host: settings.shardHost }))
      )
  })
