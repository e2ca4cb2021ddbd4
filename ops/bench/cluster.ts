// Cluster mode measured beside embedded mode (issue 25): one API process and two shard
// processes on the local Postgres and Redis (a scratch database, a key prefix of its own),
// and one embedded server, each with a guild of its own. The same four targets on both,
// side by side in 2-s slices taken in turn (pairs.ts): the guild actor's read, a member
// update (a nick change), message create and message list. Each is reported as the cluster's
// requests/s over the embedded server's, in the median round. On a two-core machine the
// cluster's three processes share the cores with the load: what it costs is the actor call
// crossing processes (serialisation, the socket, the mailbox), not more hardware.
//
// Run alone: `node ops/bench/cluster.ts` (ops/bench/run.ts runs it in embedded mode).
// Env: BENCH_CLUSTER_ROUNDS (3), BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (3), BENCH_CONNECTIONS (50).
import { type FaultCluster, startCluster } from "../faults/lib/cluster.ts"
import { intEnv } from "./env.ts"
import { scratchDatabase } from "./member-seed.ts"
import { median, pairedRound, type Side, type Throughput } from "./pairs.ts"
import { type Json, type ScratchServer, startScratchServer } from "./scratch-server.ts"

type TargetName =
  | "GET /guilds/{id} (actor read)"
  | "PATCH /guilds/{id}/members/{user_id} (nick)"
  | "POST /channels/{id}/messages"
  | "GET /channels/{id}/messages?limit=50"

const TARGETS: ReadonlyArray<{ readonly name: TargetName; readonly kind: "read" | "write" }> = [
  { name: "GET /guilds/{id} (actor read)", kind: "read" },
  { name: "PATCH /guilds/{id}/members/{user_id} (nick)", kind: "write" },
  { name: "POST /channels/{id}/messages", kind: "write" },
  { name: "GET /channels/{id}/messages?limit=50", kind: "read" }
]

/** The share of embedded throughput each kind must keep (issue 25, on two cores shared by every process). */
const TARGET_SHARE = { read: 0.5, write: 0.6 } as const

export interface ClusterFigures {
  readonly rounds: number
  readonly targets: ReadonlyArray<{
    readonly name: TargetName
    readonly kind: "read" | "write"
    readonly rounds: ReadonlyArray<{ readonly embedded: Throughput; readonly cluster: Throughput }>
    /** The cluster's requests/s over the embedded server's, in the median round. */
    readonly ratio: number
  }>
}

interface Setup {
  readonly base: string
  readonly pids: () => ReadonlyArray<number>
  readonly token: string
  readonly userId: string
  readonly guildId: string
  readonly channelId: string
}

const call = async (base: string, method: string, path: string, token?: string, body?: unknown): Promise<Json> => {
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (token !== undefined) headers.authorization = token
  const reply = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const parsed: unknown = await reply.json().catch(() => ({}))
  if (!reply.ok || typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(parsed)}`)
  }
  return Object.fromEntries(Object.entries(parsed))
}

/** An owner, a guild and 50 messages in its first channel, through `base`. */
const prepare = async (base: string, pids: () => ReadonlyArray<number>): Promise<Setup> => {
  const registered = await call(base, "POST", "/auth/register", undefined, {
    email: `c${crypto.randomUUID().slice(0, 12)}@example.com`,
    password: "correct horse battery",
    date_of_birth: "2000-01-01",
    consent: true
  })
  const token = String(registered.token)
  const guild = await call(base, "POST", "/guilds", token, { name: "cluster bench" })
  const channels: ReadonlyArray<unknown> = Array.isArray(guild.channels) ? guild.channels : []
  const first = channels[0]
  const channelId = typeof first === "object" && first !== null && "id" in first ? String(first.id) : ""
  for (let i = 0; i < 50; i++) await call(base, "POST", `/channels/${channelId}/messages`, token, { content: `seed ${i}` })
  return { base, pids, token, userId: String(registered.user_id), guildId: String(guild.id), channelId }
}

const sideOf = (target: TargetName, setup: Setup): Side => {
  const headers = { authorization: setup.token, "content-type": "application/json" }
  const pids = setup.pids()
  switch (target) {
    case "GET /guilds/{id} (actor read)":
      return { request: { url: `${setup.base}/guilds/${setup.guildId}`, headers }, pids }
    case "GET /channels/{id}/messages?limit=50":
      return { request: { url: `${setup.base}/channels/${setup.channelId}/messages?limit=50`, headers }, pids }
    case "POST /channels/{id}/messages":
      return {
        request: { url: `${setup.base}/channels/${setup.channelId}/messages`, headers, method: "POST", body: JSON.stringify({ content: "cluster bench" }) },
        pids
      }
    case "PATCH /guilds/{id}/members/{user_id} (nick)": {
      let nick = 0
      return {
        request: {
          url: `${setup.base}/guilds/${setup.guildId}/members/${setup.userId}`,
          headers,
          requests: [{ method: "PATCH", setupRequest: (req) => ({ ...req, body: JSON.stringify({ nick: `nick ${nick++ % 100_000}` }) }) }]
        },
        pids
      }
    }
  }
}

export const measureCluster = async (options: { readonly log: (line: string) => void }): Promise<ClusterFigures> => {
  const load = {
    seconds: intEnv("BENCH_SECONDS", 10),
    warmupSeconds: Number(process.env["BENCH_WARMUP_SECONDS"] ?? 3),
    connections: intEnv("BENCH_CONNECTIONS", 50)
  }
  const rounds = intEnv("BENCH_CLUSTER_ROUNDS", 3)
  let embeddedServer: ScratchServer | undefined
  let cluster: FaultCluster | undefined
  const database = await scratchDatabase()
  try {
    embeddedServer = await startScratchServer([])
    const embeddedPid = embeddedServer.pid
    cluster = await startCluster({ databaseUrl: database.url, redisUrl: "redis://127.0.0.1:6379", shards: 2, apis: 1 })
    const processes = [...cluster.apis, ...cluster.shards]
    const embedded = await prepare(embeddedServer.base, () => [embeddedPid])
    const clustered = await prepare(cluster.apis[0]?.base ?? "", () => processes.map((p) => p.pid()))
    const figures = new Map<TargetName, Array<{ embedded: Throughput; cluster: Throughput }>>(TARGETS.map((t) => [t.name, []]))
    for (let n = 1; n <= rounds; n++) {
      for (const { name } of TARGETS) {
        options.log(`bench cluster: ${name}, round ${n}/${rounds}`)
        const { a, b } = await pairedRound(sideOf(name, embedded), sideOf(name, clustered), load, n % 2 === 1)
        figures.get(name)?.push({ embedded: a, cluster: b })
      }
    }
    return {
      rounds,
      targets: TARGETS.map(({ name, kind }) => {
        const measured = figures.get(name) ?? []
        return { name, kind, rounds: measured, ratio: median(measured.map((r) => r.cluster.requestsPerSecond / r.embedded.requestsPerSecond)) }
      })
    }
  } finally {
    await cluster?.stop()
    await embeddedServer?.stop()
    await database.drop().catch(() => undefined)
  }
}

/** The figures as ops/bench/run.ts shows them: one target per ratio. */
export const clusterResults = (f: ClusterFigures) =>
  f.targets.map((t) => {
    const failures = t.rounds.reduce((n, r) => n + r.cluster.failures + r.embedded.failures, 0)
    return {
      name: `cluster mode (1 API, 2 shards): ${t.name} >= ${TARGET_SHARE[t.kind] * 100}% of embedded (requests/s, median round)`,
      measured: `${(t.ratio * 100).toFixed(1)}%${failures > 0 ? ` (${failures} failed requests)` : ""}`,
      holds: failures === 0 && t.ratio >= TARGET_SHARE[t.kind]
    }
  })

if (import.meta.main) {
  try {
    const figures = await measureCluster({ log: (line) => process.stderr.write(`${line}\n`) })
    for (const t of figures.targets) {
      const rounds = t.rounds.map((r) => `${r.embedded.requestsPerSecond.toFixed(0)} → ${r.cluster.requestsPerSecond.toFixed(0)}`)
      process.stdout.write(`${t.name}: ${(t.ratio * 100).toFixed(1)}% of embedded (requests/s per round, embedded → cluster: ${rounds.join(", ")})\n`)
    }
    process.stdout.write(`${JSON.stringify({ cluster: figures })}\n`)
  } catch (error) {
    process.stderr.write(`bench cluster: ERROR: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  }
}
