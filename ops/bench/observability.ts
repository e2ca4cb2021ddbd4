// What seeing a deployment costs (issue 22): the same three targets on two servers of one run,
// one with nothing recorded (METRICS=off, no OTEL_EXPORTER_OTLP_ENDPOINT) and one with metrics
// on and every trace exported to a local OTLP receiver of this file's own over a real socket:
// GET /_health, GET /guilds/{id} (the guild actor's read) and POST /channels/{id}/messages
// (message create, a write through the actor and Postgres). Each round starts a new pair of
// servers (two processes of the same code differ by several points for their whole lives, so
// the rounds draw new pairs rather than repeat one pair's luck) and loads the two side by side,
// each under its own connections at the same time, so that the host's changing speed weighs on
// both in every instant. They share the load generator, so a costlier server spends more CPU to
// keep pace rather than answering less: a target's ratio is the plain server's CPU time per
// request (from /proc) over the observed one's, in the median round, and the requests/s ratio is
// shown beside it. For a server whose CPU is its limit, that is the share of its throughput kept.
// A round measures after the observed server's first export of spans (both servers are loaded with
// reads until the receiver has it, and two seconds more): what follows a process's first export
// costs once, not per request.
// BENCH_OBSERVABILITY_LOAD=in-turn measures the two in 2-s slices taken in turn (ABBA) instead and
// judges requests/s: a throughput figure, but one that swings by more than the target's 10 points
// between runs of the same code on a shared host (README).
//
// The observed server records one trace in a hundred (OTEL_TRACES_SAMPLER=parentbased_traceidratio,
// OTEL_TRACES_SAMPLER_ARG=0.01: what the README advises for a busy deployment, where a recorded
// request costs about 40 µs more than one that is not); BENCH_TRACE_SAMPLE=0.1 or 1 measures it
// recording one trace in ten, or every request's, instead.
//
// Run alone: `node ops/bench/observability.ts` (ops/bench/run.ts runs it in embedded mode).
// BENCH_OBSERVED (`metrics,traces`) names what the observed server records: `metrics` alone or
// `traces` alone says what each costs, `none` makes it a second plain server (an A/A run: the
// noise between two processes of the same code). BENCH_OBSERVABILITY_TARGETS (`health,read,message`)
// measures some targets only.
// Env: BENCH_OBSERVABILITY_LOAD (side-by-side), BENCH_OBSERVABILITY_ROUNDS (11),
// BENCH_OBSERVABILITY_SECONDS (4 per server and target), BENCH_OBSERVABILITY_WARMUP_SECONDS (2), BENCH_CONNECTIONS (50),
// BENCH_TRACE_SAMPLE (0.01).
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { intEnv } from "./env.ts"
import { loadBoth, median, pairedRound, type Side, sideBySideRound, type Throughput } from "./pairs.ts"
import { type ScratchServer, startScratchServer } from "./scratch-server.ts"

export interface ObservabilityFigures {
  readonly rounds: number
  /** `in-turn`: requests/s judged; `side-by-side`: CPU time per request judged. */
  readonly load: "in-turn" | "side-by-side"
  /** The share of requests whose traces the observed server recorded and exported. */
  readonly traceSample: number
  readonly targets: ReadonlyArray<{
    readonly name: string
    /** One pair per round: the plain server's and the observed one's. */
    readonly rounds: ReadonlyArray<{ readonly plain: Throughput; readonly observed: Throughput }>
    /** The observed server's share of the plain one's requests/s, in the median round. */
    readonly ratio: number
    /** The observed server's requests per CPU second as a share of the plain one's, median round. */
    readonly cpuRatio: number
  }>
  /** What the receiver took while the observed server was measured: proof the traces went out. */
  readonly exports: { readonly requests: number; readonly bytes: number }
  /** Lines of the observed server's /metrics: proof the metrics were recorded. */
  readonly metricLines: number
}

/** An OTLP/HTTP receiver that takes every export and keeps only its size. */
const startReceiver = async (): Promise<{ url: string; requests: () => number; bytes: () => number; stop: () => Promise<void> }> => {
  let requests = 0
  let bytes = 0
  const server: Server = createServer((request, response) => {
    request.on("data", (chunk: Buffer) => {
      bytes += chunk.length
    })
    request.on("end", () => {
      requests++
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    bytes: () => bytes,
    stop: () => new Promise((resolve) => server.close(() => resolve()))
  }
}

interface Setup {
  readonly server: ScratchServer
  readonly base: string
  readonly token: string
  readonly guildId: string
  readonly channelId: string
}

const prepare = async (server: ScratchServer): Promise<Setup> => {
  const token = await server.register()
  const guild = await server.call("POST", "/guilds", token, { name: "observability bench" })
  const channels = Array.isArray(guild["channels"]) ? guild["channels"] : []
  const first: unknown = channels[0]
  const channelId = typeof first === "object" && first !== null && "id" in first ? String(first.id) : ""
  if (channelId === "") throw new Error(`the guild has no channel: ${JSON.stringify(guild).slice(0, 300)}`)
  return { server, base: server.base, token, guildId: String(guild["id"]), channelId }
}

// Many short rounds rather than a few long ones: two processes of the same code differ by up to a
// tenth for their whole lives, the larger noise here, and only new pairs average it out.
const load = () => ({
  rounds: intEnv("BENCH_OBSERVABILITY_ROUNDS", 11),
  seconds: intEnv("BENCH_OBSERVABILITY_SECONDS", 4),
  warmupSeconds: intEnv("BENCH_OBSERVABILITY_WARMUP_SECONDS", 2),
  connections: intEnv("BENCH_CONNECTIONS", 50)
})

type TargetName = "GET /_health" | "GET /guilds/{id} (actor read)" | "POST /channels/{id}/messages"
const ALL_TARGETS = {
  health: "GET /_health",
  read: "GET /guilds/{id} (actor read)",
  message: "POST /channels/{id}/messages"
} as const satisfies Record<string, TargetName>

/** The names of a comma-separated setting, each one of `known`. */
const listEnv = <K extends string>(name: string, known: ReadonlyArray<K>, fallback: ReadonlyArray<K>): ReadonlyArray<K> => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const isKnown = (word: string): word is K => known.some((k) => k === word)
  return raw.split(",").map((word) => {
    const trimmed = word.trim()
    if (!isKnown(trimmed)) throw new Error(`${name}: ${trimmed} is none of ${known.join(", ")}`)
    return trimmed
  })
}

const TARGETS: ReadonlyArray<TargetName> = listEnv("BENCH_OBSERVABILITY_TARGETS", ["health", "read", "message"], [
  "health",
  "read",
  "message"
]).map((key) => ALL_TARGETS[key])

const sideOf = (target: TargetName, setup: Setup): Side => ({ request: requestOf(target, setup), pids: [setup.server.pid] })

const requestOf = (target: TargetName, setup: Setup) => {
  const headers = { authorization: setup.token, "content-type": "application/json" }
  return target === "GET /_health"
    ? { url: `${setup.base}/_health` }
    : target === "GET /guilds/{id} (actor read)"
    ? { url: `${setup.base}/guilds/${setup.guildId}`, headers }
    : {
      url: `${setup.base}/channels/${setup.channelId}/messages`,
      headers,
      method: "POST" as const,
      body: JSON.stringify({ content: "measured with and without metrics and traces" })
    }
}

/** How long a new observed server may take to send its first export (every 5 s by default) under load. */
const FIRST_EXPORT_SECONDS = 20

/**
 * Loads both servers with reads (which record traces; probes do not) until the observed one has
 * sent its first export, and two seconds more: in per-second samples of /proc, a server's first
 * export was followed by about two seconds in which its requests cost a quarter more CPU, once in
 * the process's life, which a round of a few seconds would otherwise count as throughput.
 */
const untilFirstExport = async (plain: Setup, observed: Setup, exports: () => number, connections: number) => {
  const before = exports()
  const read: TargetName = "GET /guilds/{id} (actor read)"
  const warm = (seconds: number) => loadBoth(sideOf(read, plain), sideOf(read, observed), { seconds, warmupSeconds: 0, connections }, seconds)
  for (let waited = 0; exports() === before; waited++) {
    if (waited >= FIRST_EXPORT_SECONDS) throw new Error(`the observed server sent no export within ${FIRST_EXPORT_SECONDS} s of load`)
    await warm(1)
  }
  await warm(2)
}

/** The `guildhall_` lines of a server's /metrics: proof it recorded them. */
const metricLinesOf = async (server: ScratchServer) => {
  const metrics = await fetch(`${server.base}/metrics`, { headers: { authorization: `Admin ${server.adminKey}` } })
  return metrics.ok ? (await metrics.text()).split("\n").filter((l) => l.startsWith("guildhall_")).length : 0
}

export const measureObservability = async (options: { readonly log: (line: string) => void }): Promise<ObservabilityFigures> => {
  const settings = load()
  const traceSample = Number(process.env["BENCH_TRACE_SAMPLE"] ?? 0.01)
  if (!(traceSample > 0 && traceSample <= 1)) throw new Error(`BENCH_TRACE_SAMPLE must be above 0 and at most 1`)
  const receiver = await startReceiver()
  const observing = listEnv("BENCH_OBSERVED", ["metrics", "traces", "none"], ["metrics", "traces"])
  const loading = listEnv("BENCH_OBSERVABILITY_LOAD", ["side-by-side", "in-turn"], ["side-by-side"])[0] ?? "side-by-side"
  const observedSettings = {
    METRICS: observing.includes("metrics") ? "on" : "off",
    ...(observing.includes("traces")
      ? {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: "guildhall-bench",
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: String(traceSample)
      }
      : {})
  }
  const servers: Array<ScratchServer> = []
  try {
    const figures = new Map<TargetName, Array<{ plain: Throughput; observed: Throughput }>>(TARGETS.map((t) => [t, []]))
    let metricLines = 0
    for (let n = 1; n <= settings.rounds; n++) {
      // A new pair each round: two processes of the same code differ by several points for the
      // whole of their lives (where V8 placed and compiled what), so rounds of one pair would
      // repeat its luck, while rounds of new pairs each draw theirs.
      const plainServer = await startScratchServer([], { METRICS: "off" })
      servers.push(plainServer)
      const observedServer = await startScratchServer([], observedSettings)
      servers.push(observedServer)
      const plain = await prepare(plainServer)
      const observed = await prepare(observedServer)
      if (observing.includes("traces")) await untilFirstExport(plain, observed, receiver.requests, settings.connections)
      for (const target of TARGETS) {
        options.log(`bench observability: ${target}, round ${n}/${settings.rounds}`)
        const { a, b } = loading === "side-by-side"
          ? await sideBySideRound(sideOf(target, plain), sideOf(target, observed), settings)
          : await pairedRound(sideOf(target, plain), sideOf(target, observed), settings, n % 2 === 1)
        figures.get(target)?.push({ plain: a, observed: b })
      }
      metricLines = await metricLinesOf(observedServer)
      await Promise.all(servers.splice(0).map((s) => s.stop()))
    }
    return {
      rounds: settings.rounds,
      load: loading,
      traceSample,
      targets: TARGETS.map((name) => {
        const rounds = figures.get(name) ?? []
        return {
          name,
          rounds,
          ratio: median(rounds.map((r) => r.observed.requestsPerSecond / r.plain.requestsPerSecond)),
          cpuRatio: median(rounds.map((r) => r.plain.cpuMicrosPerRequest / r.observed.cpuMicrosPerRequest))
        }
      }),
      exports: { requests: receiver.requests(), bytes: receiver.bytes() },
      metricLines
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
    await receiver.stop()
  }
}

const traceShare = (f: ObservabilityFigures) => `${Number((f.traceSample * 100).toFixed(2))}%`

/** The figures as ops/bench/run.ts shows them: a row per target and server, and one target per ratio. */
export const observabilityResults = (f: ObservabilityFigures) => {
  const recorded = f.exports.requests > 0 && f.metricLines > 0
  const runs = f.targets.flatMap((t) =>
    (["plain", "observed"] as const).map((which) => {
      const rounds = t.rounds.map((r) => r[which])
      const mid = median(rounds.map((r) => r.requestsPerSecond))
      return {
        target: `${t.name}, ${which === "plain" ? "metrics and traces off" : `metrics on, ${traceShare(f)} of traces exported`} (median round)`,
        url: t.name,
        requestsPerSecond: mid,
        latencyP50Ms: 0,
        latencyP99Ms: median(rounds.map((r) => r.latencyP99Ms)),
        latencyAverageMs: 0,
        latencyMaxMs: 0,
        requests: 0,
        non2xx: rounds.reduce((n, r) => n + r.failures, 0),
        errors: 0,
        timeouts: 0
      }
    })
  )
  const sideBySide = f.load === "side-by-side"
  const targets = f.targets.map((t) => ({
    name: `${t.name} with metrics and ${traceShare(f)} of traces >= 90% of without (${
      sideBySide ? "requests per CPU second, loaded side by side" : "requests/s"
    }, median round)`,
    measured: sideBySide
      ? `${(t.cpuRatio * 100).toFixed(1)}% (requests/s ${(t.ratio * 100).toFixed(1)}%)`
      : `${(t.ratio * 100).toFixed(1)}% (per CPU second ${(t.cpuRatio * 100).toFixed(1)}%)`,
    holds: recorded && (sideBySide ? t.cpuRatio : t.ratio) >= 0.9
  }))
  return { runs, targets, recorded }
}

if (import.meta.main) {
  try {
    const figures = await measureObservability({ log: (line) => process.stderr.write(`${line}\n`) })
    const { recorded } = observabilityResults(figures)
    for (const t of figures.targets) {
      const rounds = t.rounds.map((r) => `${r.plain.requestsPerSecond.toFixed(0)} → ${r.observed.requestsPerSecond.toFixed(0)}`)
      process.stdout.write(
        `${t.name}: ${(t.ratio * 100).toFixed(1)}%, per CPU second ${(t.cpuRatio * 100).toFixed(1)}% (requests/s per round, off → on: ${
          rounds.join(", ")
        })\n`
      )
    }
    process.stdout.write(
      `exports received: ${figures.exports.requests} (${figures.exports.bytes} bytes); metric lines: ${figures.metricLines}${recorded ? "" : "  NOT RECORDED: the figures do not count"}\n`
    )
    process.stdout.write(`${JSON.stringify({ observability: figures })}\n`)
  } catch (error) {
    process.stderr.write(`bench observability: ERROR: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  }
}
