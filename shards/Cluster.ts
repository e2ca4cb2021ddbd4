import { NodeClusterSocket, NodeCrypto } from "@effect/platform-node"
import { Duration, Layer, Option } from "effect"
import {
  RunnerAddress,
  RunnerHealth,
  Runners,
  RunnerStorage,
  Sharding,
  ShardingConfig,
  SocketRunner,
  SqlMessageStorage
} from "effect/cluster"
import { RpcSerialization } from "effect/rpc"
import type { Settings } from "../src/platform/Config.ts"
import { layerCorkedClientProtocol } from "./CorkedSockets.ts"
import { RedisRunnerStorage } from "./RedisRunnerStorage.ts"
import { ClusterReadiness } from "./Readiness.ts"

/**
 * The three ways a process takes part in the cluster:
 * - `embedded`: one process hosts the API and the only runner; ownership in memory.
 * - `runner`: a shard process; ownership leased in Redis, peers reached over TCP.
 * - `client`: an API process in cluster mode; it sends to runners and hosts none.
 * Writes are persisted messages in every mode (SqlMessageStorage): a write the
 * sender was told about survives the death of the runner that was handling it.
 */
export type ClusterRole = "embedded" | "runner" | "client"

/**
 * Built from our own settings, never from the engine's environment reader:
 * its generic names (`PORT`, `HOST`) would hand the HTTP port to the runner.
 *
 * Failover: a dead runner's shards move once its lease lapses
 * (`shardLockExpiration`) and the survivors notice (`refreshAssignmentsInterval`).
 * 6 s + 1 s brings a killed runner's guilds back in about 5 to 7 s; shorter
 * leases would let a runner that merely stalled (a long GC pause, a slow
 * Redis) lose its shards while still alive.
 */
export const shardingConfig = (settings: Settings, role: ClusterRole) => {
  const lease = Duration.seconds(settings.shardLockExpirationSeconds)
  const advertised = RunnerAddress.make(settings.shardAdvertiseHost, settings.shardAdvertisePort)
  return ShardingConfig.layer({
    runnerAddress: role === "client" ? Option.none() : Option.some(advertised),
    runnerListenAddress: role === "runner"
      ? Option.some(RunnerAddress.make(settings.shardHost, settings.shardPort))
      : Option.none(),
    shardLockExpiration: lease,
    shardLockRefreshInterval: Duration.seconds(Math.max(1, Math.floor(settings.shardLockExpirationSeconds / 3))),
    refreshAssignmentsInterval: Duration.seconds(1),
    runnerHealthCheckInterval: Duration.seconds(5),
    // The default of 10,000 refuses new actors once reached; idle ones passivate instead.
    maxResidentEntities: settings.maxResidentActors,
    entityMaxIdleTime: Duration.minutes(settings.actorIdleMinutes),
    entityMessagePollInterval: Duration.seconds(2),
    entityReplyPollInterval: Duration.millis(50),
    sendRetryInterval: Duration.millis(50),
    // Local deliveries skip the encode/decode round trip; remote ones still serialize.
    simulateRemoteSerialization: false
  })
}

const messageStorage = SqlMessageStorage.layer.pipe(Layer.provide(NodeCrypto.layerDigest))

const redisOwnership = (settings: Settings) =>
  RedisRunnerStorage.layer({
    // Under the deployment's prefix: two deployments on one Redis must never share a runner list.
    prefix: `${settings.redisKeyPrefix}cluster:`,
    lockExpirationMillis: settings.shardLockExpirationSeconds * 1000
  })

/**
 * Runner-to-runner and API-to-runner messages travel as SchemaBinary. Every
 * entity payload, success and error schema must have a binary layout; a union
 * needs a literal discriminator that survives encoding (see `onWire` in
 * guild/Protocol.ts). A reply that has no layout throws on the runner while it
 * is being sent: the reply is stored, but the caller's call never completes.
 */
const serialization = RpcSerialization.layerSchemaBinary()

/** Sharding of the single process that is the whole system. */
export const embeddedSharding = (settings: Settings) =>
  Layer.merge(Sharding.layer, ClusterReadiness.layerEmbedded).pipe(
    Layer.provideMerge(Runners.layerNoop),
    Layer.provideMerge(messageStorage),
    Layer.provide([RunnerStorage.layerMemory, RunnerHealth.layerNoop]),
    Layer.provide(shardingConfig(settings, "embedded"))
  )

/** Sharding of a shard process: hosts entities, serves peers over TCP. */
export const runnerSharding = (settings: Settings) =>
  Layer.provideMerge(
    ClusterReadiness.layerRunner(RunnerAddress.make(settings.shardAdvertiseHost, settings.shardAdvertisePort)),
    SocketRunner.layer
  ).pipe(
    Layer.provide([NodeClusterSocket.layerSocketServer, layerCorkedClientProtocol]),
    Layer.provide(
      RunnerHealth.layerPing.pipe(Layer.provide(Runners.layerRpc), Layer.provide(layerCorkedClientProtocol))
    ),
    Layer.provideMerge(messageStorage),
    Layer.provide(redisOwnership(settings)),
    Layer.provide(shardingConfig(settings, "runner")),
    Layer.provide(serialization)
  )

/** Sharding of an API process in cluster mode: sends to runners, hosts nothing. */
export const clientSharding = (settings: Settings) =>
  Layer.merge(SocketRunner.layerClientOnly, ClusterReadiness.layerClient).pipe(
    Layer.provide(layerCorkedClientProtocol),
    Layer.provideMerge(messageStorage),
    Layer.provide(redisOwnership(settings)),
    Layer.provide(shardingConfig(settings, "client")),
    Layer.provide(serialization)
  )
