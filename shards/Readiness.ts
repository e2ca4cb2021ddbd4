import { Context, Effect, Layer } from "effect"
import { RunnerAddress, RunnerStorage, Sharding } from "effect/cluster"
import { Unavailable } from "../src/model/Errors.ts"
import { notReady, PROBE_TTL, probeDatabase, probeRedis } from "../src/platform/Probes.ts"

/**
 * Whether this process has its place in the cluster: the one process of an
 * embedded deployment always has; an API process in cluster mode once a
 * healthy shard process is registered (someone hosts the actors it calls);
 * a shard process once it is registered itself (its shards can be assigned to it).
 */
export class ClusterReadiness extends Context.Service<ClusterReadiness, {
  readonly check: Effect.Effect<"ok", Unavailable>
}>()("guildhall/ClusterReadiness") {
  static readonly layerEmbedded = Layer.succeed(ClusterReadiness, ClusterReadiness.of({ check: Effect.succeed("ok") }))

  static readonly layerClient = Layer.effect(
    ClusterReadiness,
    Effect.map(RunnerStorage.RunnerStorage, (storage) =>
      ClusterReadiness.of({
        check: storage.getRunners.pipe(
          Effect.timeout("2 seconds"),
          Effect.mapError(() => notReady("the cluster's runner list (Redis) is not answering")),
          Effect.flatMap((runners) =>
            runners.some(([, healthy]) => healthy)
              ? Effect.succeed("ok" as const)
              : Effect.fail(notReady("no healthy shard process is registered in the cluster")))
        )
      }))
  )

  static readonly layerRunner = (address: RunnerAddress.RunnerAddress) =>
    Layer.effect(
      ClusterReadiness,
      Effect.gen(function*() {
        const storage = yield* RunnerStorage.RunnerStorage
        const sharding = yield* Sharding.Sharding
        return ClusterReadiness.of({
          check: Effect.gen(function*() {
            if (yield* sharding.isShutdown) return yield* Effect.fail(notReady("this shard process is shutting down"))
            const runners = yield* storage.getRunners.pipe(
              Effect.timeout("2 seconds"),
              Effect.mapError(() => notReady("the cluster's runner list (Redis) is not answering"))
            )
            const registered = runners.some(([runner]) => runner.address.host === address.host && runner.address.port === address.port)
            return registered
              ? "ok" as const
              : yield* Effect.fail(notReady(`this shard process (${address.host}:${address.port}) is not registered in the cluster`))
          })
        })
      })
    )
}

/**
 * `/_ready`'s answer: Postgres, Redis and the process's place in the cluster,
 * probed together and remembered for a second; the first that is not ready is the error.
 */
export const readinessProbe = Effect.gen(function*() {
  const database = yield* probeDatabase
  const redis = yield* probeRedis
  const { check } = yield* ClusterReadiness
  return yield* Effect.cachedWithTTL(
    Effect.map(Effect.all([database, redis, check], { concurrency: "unbounded" }), ([database, redis, cluster]) => ({
      status: "ready" as const,
      database,
      redis,
      cluster
    })),
    PROBE_TTL
  )
})

/** `/_health`'s answer: Postgres and Redis answer (liveness: the cluster's state does not matter). */
export const livenessProbe = Effect.gen(function*() {
  const database = yield* probeDatabase
  const redis = yield* probeRedis
  return yield* Effect.cachedWithTTL(
    Effect.map(Effect.all([database, redis], { concurrency: "unbounded" }), ([database, redis]) => ({
      status: "ok" as const,
      database,
      redis
    })),
    PROBE_TTL
  )
})
