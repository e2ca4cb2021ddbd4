import "./platform/HeapTuning.ts"
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { apiLayer } from "./App.ts"
import { AppConfig } from "./platform/Config.ts"
import { telemetryLayer } from "./platform/Telemetry.ts"

/** The API process. With no DATABASE_URL and REDIS_URL it is the whole system in one process. */
const main = Effect.gen(function*() {
  const settings = yield* AppConfig
  return yield* Layer.launch(apiLayer(settings)).pipe(Effect.provide(telemetryLayer(settings, "api")))
}).pipe(Effect.provide(AppConfig.layer))

NodeRuntime.runMain(main)
