// One fault, measured: the test's own Redis and Postgres, a cluster on them, guilds under the
// steady load; after a warm-up the fault is injected, and once it has ended the run waits
// until every guild answers again, stops the load and reads the figures.
import { randomUUID } from "node:crypto"
import { setTimeout as sleep } from "node:timers/promises"
import { type ClusterSettings, type FaultCluster, startCluster } from "./cluster.ts"
import { createGuilds, type Load, type LoadGuild, startLoad } from "./load.ts"
import { openSessions, type Sessions } from "./sessions.ts"
import { type OwnPostgres, ownPostgres, type OwnRedis, ownRedis } from "./services.ts"
import { type FaultFigures, faultFigures, recoverySeconds } from "./verify.ts"

export interface FaultWorld {
  readonly redis: OwnRedis
  readonly postgres: OwnPostgres
  readonly databaseUrl: string
  readonly cluster: FaultCluster
  readonly guilds: ReadonlyArray<LoadGuild>
  readonly load: Load
  readonly sessions: Sessions
}

export interface FaultScenario {
  readonly name: string
  readonly shards?: number
  readonly apis?: number
  readonly guilds?: number
  /** Settings for every process beside the suite's defaults. */
  readonly env?: Readonly<Record<string, string>>
  readonly shardEnv?: ClusterSettings["shardEnv"]
  /**
   * Before anything starts: what the scenario needs outside the cluster (a fake store, a
   * directory to mount over), with settings for every process; `cleanup` runs last, always.
   */
  readonly setup?: () => Promise<{ readonly env?: Readonly<Record<string, string>>; readonly cleanup: () => Promise<void> }>
  /** Injects the fault and returns once it has ended (the service is back, the process woken); notes for the table. */
  readonly inject: (world: FaultWorld) => Promise<ReadonlyArray<string> | void>
  /** After the figures, while the cluster still runs: further checks of the scenario's own. */
  readonly afterwards?: (world: FaultWorld, figures: FaultFigures) => Promise<FaultFigures>
}

export interface RunOptions {
  /** Load before the fault. */
  readonly warmupMs?: number
  /** How long every guild may take to answer again once the fault has ended. */
  readonly recoveryLimitMs?: number
}

/** The suite's defaults: a 5-s actor call bound, clients that wait 3 s longer, 6-s shard leases. */
export const ACTOR_CALL_TIMEOUT_MS = 5_000
export const CLIENT_TIMEOUT_MS = ACTOR_CALL_TIMEOUT_MS + 3_000

export const runScenario = async (scenario: FaultScenario, options: RunOptions = {}): Promise<FaultFigures> => {
  const cleanups: Array<() => Promise<void>> = []
  try {
    const prepared = scenario.setup === undefined ? undefined : await scenario.setup()
    if (prepared !== undefined) cleanups.unshift(prepared.cleanup)
    const redis = await ownRedis()
    cleanups.unshift(redis.remove)
    const postgres = await ownPostgres()
    cleanups.unshift(postgres.remove)
    const databaseUrl = await postgres.createDatabase(`faults_${randomUUID().replaceAll("-", "").slice(0, 12)}`)
    const cluster = await startCluster({
      databaseUrl,
      redisUrl: redis.url,
      shards: scenario.shards ?? 2,
      apis: scenario.apis ?? 1,
      env: { ACTOR_CALL_TIMEOUT_MS: String(ACTOR_CALL_TIMEOUT_MS), ...prepared?.env, ...scenario.env },
      ...(scenario.shardEnv === undefined ? {} : { shardEnv: scenario.shardEnv })
    })
    cleanups.unshift(cluster.stop)
    const apis = cluster.apis.map((a) => a.base)
    const guildCount = scenario.guilds ?? 8
    const guilds = await createGuilds(apis[0] ?? "", guildCount)
    const sessions = openSessions(apis, guilds)
    cleanups.unshift(sessions.close)
    await sessions.ready
    const load = startLoad({ apis, guilds, timeoutMs: CLIENT_TIMEOUT_MS })
    cleanups.unshift(load.stop)
    const world: FaultWorld = { redis, postgres, databaseUrl, cluster, guilds, load, sessions }
    await sleep(options.warmupMs ?? 5_000)
    const faultStart = Date.now()
    const notes = await scenario.inject(world) ?? []
    const faultEnd = Date.now()
    const limit = faultEnd + (options.recoveryLimitMs ?? 60_000)
    while (!Number.isFinite(recoverySeconds(load.samples, guildCount, faultEnd)) && Date.now() < limit) await sleep(250)
    // A little more load after recovery, so that writes acknowledged late are in the ledger too;
    // then time for the last dispatches to reach the sessions.
    await sleep(2_000)
    await load.stop()
    await sleep(2_000)
    // A process that exited by itself leaves its last words in the notes: the cause, should it recur.
    const dead = [...cluster.shards, ...cluster.apis].filter((p) => !p.alive())
    const deaths = dead.map((p) => `${p.name} exited by itself; its last output:\n${p.output().slice(-4_000)}`)
    const figures = await faultFigures({
      fault: scenario.name,
      load,
      sessions,
      guilds: guildCount,
      databaseUrl,
      faultStart,
      faultEnd,
      restartedByHand: dead.map((p) => p.name),
      notes: [...notes, ...deaths]
    })
    return scenario.afterwards === undefined ? figures : await scenario.afterwards(world, figures)
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined)
  }
}
