// The soak: a cluster (two shards, two APIs) on its own Redis and Postgres under the steady mixed
// load for SOAK_MINUTES (30), sampled every 10 s: each process's resident memory and open file
// descriptors, Redis's key count, the interval's requests/s and p50/p99 latency. After the warm-up
// nothing may grow: memory under 10 %, fds and keys within a small slack, p99 within 1.5×; and
// nothing acknowledged may be lost or doubled. Writes the series (soak-results.json), a plot
// (soak.png) and a markdown summary.
import { randomUUID } from "node:crypto"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { setTimeout as sleep } from "node:timers/promises"
import { startCluster } from "./lib/cluster.ts"
import { createGuilds, type Sample, startLoad } from "./lib/load.ts"
import { CLIENT_TIMEOUT_MS, ACTOR_CALL_TIMEOUT_MS } from "./lib/scenario.ts"
import { ownPostgres, ownRedis } from "./lib/services.ts"
import { openSessions } from "./lib/sessions.ts"
import { faultFigures } from "./lib/verify.ts"
import { latencies, soakTable, soakVerdicts } from "./soak-verdicts.ts"
import { plotSoak, type SoakPoint as Point } from "./soak-chart.ts"

const here = dirname(fileURLToPath(import.meta.url))
const minutes = Number(process.env.SOAK_MINUTES ?? "30")
const intervalMs = Number(process.env.SOAK_INTERVAL_SECONDS ?? "10") * 1000
const durationMs = minutes * 60_000
// Heaps take about five minutes of this load to settle: growth is judged after six, or a tenth of a long run.
const warmupMs = Math.min(durationMs / 2, Math.max(durationMs / 10, 6 * 60_000))
const GUILDS = 8

/** Resident memory of a process in MB (VmRSS), its open fds; undefined once it is gone. */
const processFigures = (pid: number) => {
  try {
    const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]
    return { rssMb: Number(rss) / 1024, fds: readdirSync(`/proc/${pid}/fd`).length }
  } catch {
    return undefined
  }
}

const main = async () => {
  const cleanups: Array<() => Promise<void>> = []
  try {
    const redis = await ownRedis()
    cleanups.unshift(redis.remove)
    const postgres = await ownPostgres()
    cleanups.unshift(postgres.remove)
    const databaseUrl = await postgres.createDatabase(`soak_${randomUUID().replaceAll("-", "").slice(0, 12)}`)
    const cluster = await startCluster({
      databaseUrl,
      redisUrl: redis.url,
      shards: 2,
      apis: 2,
      env: { ACTOR_CALL_TIMEOUT_MS: String(ACTOR_CALL_TIMEOUT_MS) }
    })
    cleanups.unshift(cluster.stop)
    const apis = cluster.apis.map((a) => a.base)
    const guilds = await createGuilds(apis[0] ?? "", GUILDS)
    const sessions = openSessions(apis, guilds)
    cleanups.unshift(sessions.close)
    await sessions.ready
    // Thirty minutes of samples would be the load driver's own leak: each interval's are taken and dropped.
    let interval: Array<Sample> = []
    const load = startLoad({ apis, guilds, timeoutMs: CLIENT_TIMEOUT_MS, keepSamples: false, onSample: (s) => interval.push(s) })
    cleanups.unshift(load.stop)
    const processes = [...cluster.shards, ...cluster.apis]
    const start = Date.now()
    const points: Array<Point> = []
    let last = start
    console.error(`soak: ${minutes} min, warm-up ${(warmupMs / 60_000).toFixed(1)} min, a sample every ${intervalMs / 1000} s`)
    while (Date.now() - start < durationMs) {
      await sleep(Math.max(0, last + intervalMs - Date.now()))
      const now = Date.now()
      const taken = interval
      interval = []
      const { p50, p99 } = latencies(taken.map((s) => s.ms))
      const figures: Record<string, { rssMb: number; fds: number }> = {}
      for (const p of processes) {
        const f = processFigures(p.pid())
        if (f !== undefined) figures[p.name] = f
      }
      const point: Point = {
        at: now,
        minute: (now - start) / 60_000,
        processes: figures,
        redisKeys: await redis.keyCount(),
        requests: taken.length,
        rps: taken.length / ((now - last) / 1000),
        p50,
        p99,
        serverErrors: taken.filter((s) => s.status >= 500 && s.status !== 503).length,
        hangs: taken.filter((s) => s.status === -1).length
      }
      points.push(point)
      last = now
      console.error(`${point.minute.toFixed(1)} min: ${Object.entries(figures).map(([n, f]) => `${n} ${f.rssMb.toFixed(0)} MB/${f.fds} fd`).join(", ")}; keys ${point.redisKeys}; ${point.rps.toFixed(0)} req/s p50 ${point.p50} p99 ${point.p99} ms`)
    }
    await load.stop()
    // The series first: whatever the checks below do, the run's figures are kept.
    writeFileSync(join(here, "soak-results.json"), JSON.stringify({ minutes, warmupMinutes: warmupMs / 60_000, intervalSeconds: intervalMs / 1000, guilds: GUILDS, points }, null, 1) + "\n")
    await sleep(2_000)
    const end = Date.now()
    const dead = processes.filter((p) => !p.alive()).map((p) => p.name)
    const faults = await faultFigures({ fault: "soak", load, sessions, guilds: GUILDS, databaseUrl, faultStart: end, faultEnd: end, restartedByHand: dead })

    const verdicts = soakVerdicts(points, warmupMs / 60_000, {
      acknowledged: faults.acknowledged,
      lost: faults.lost,
      appliedTwice: faults.appliedTwice,
      eventsLost: faults.eventsLost,
      resumes: faults.resumes,
      reidentifies: faults.reidentifies,
      restartedByHand: dead
    })
    writeFileSync(join(here, "soak-results.json"), JSON.stringify({ minutes, warmupMinutes: warmupMs / 60_000, intervalSeconds: intervalMs / 1000, guilds: GUILDS, verdicts, points }, null, 1) + "\n")

    console.log(soakTable(verdicts))
    await plotSoak(points, { minutes, warmupMinutes: warmupMs / 60_000, guilds: GUILDS, passed: verdicts.passed }, join(here, "soak.png")).catch((error: unknown) => {
      console.error(`soak: no plot (${String(error)})`)
    })
    process.exitCode = verdicts.passed ? 0 : 1
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined)
  }
}

await main()
