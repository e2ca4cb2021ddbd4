import "../src/platform/HeapTuning.ts"
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { clusterPlatformLayer, entitiesLayer } from "./Layers.ts"
import { Limits } from "../src/platform/Limits.ts"
import { AppConfig, isClusterMode } from "../src/platform/Config.ts"
import { metricsLayer, metricsSwitch } from "../src/platform/MetricsExport.ts"
import { runnerSharding } from "./Cluster.ts"
import { ControlListener } from "./Control.ts"
import { healthListener } from "./HealthListener.ts"
import { LiveActors } from "./LiveActors.ts"
import { ClusterStats } from "./Stats.ts"
import { RelayPublisher } from "./Relay.ts"
import { UserEvents } from "./UserEvents.ts"
import { telemetryLayer } from "../src/platform/Telemetry.ts"

/**
 * A shard process: a runner hosting guild and user actors. It needs the
 * Postgres and Redis that every process of the cluster shares.
 */
const main = Effect.gen(function*() {
  const settings = yield* AppConfig
  if (!isClusterMode(settings)) {
    return yield* Effect.die(new Error("a shard process needs DATABASE_URL and REDIS_URL (npm start runs everything in one process)"))
  }
  const shard = Layer.mergeAll(
    entitiesLayer(settings),
    ClusterStats.layerRedis("shard", true),
    ControlListener.layer,
    RelayPublisher.layer,
    healthListener(settings)
  ).pipe(
    Layer.provide(UserEvents.layerRedis),
    // The guilds' checks read the limits; an operator's change reaches them over Redis.
    Layer.provide(Limits.layerRedis),
    Layer.provideMerge(runnerSharding(settings)),
    Layer.provideMerge(metricsLayer),
    Layer.provideMerge(LiveActors.layer),
    Layer.provideMerge(clusterPlatformLayer),
    Layer.provide(metricsSwitch(settings.metrics.enabled))
  )
  const launch = Effect.andThen(
    Effect.logInfo(`shard process listening for peers on ${settings.shardHost}:${settings.shardPort}`),
    Layer.launch(shard)
  )
  return yield* Effect.provide(launch, telemetryLayer(settings, "shard"))
}).pipe(Effect.provide(AppConfig.layer))

NodeRuntime.runMain(main)
