// READY benchmark: `node ops/bench/gateway-ready.ts` on its own, or `measureReady` from
// ops/bench/run.ts (`npm run bench`).
//
// Boots the embedded server on a scratch Postgres database; one user creates
// BENCH_READY_GUILDS (100) guilds and another joins each through an invite. Then the member
// connects to the gateway BENCH_READY_CONNECTS (100) times, one connection after another,
// after BENCH_READY_WARMUP (5) connects that do not count: for each, the time from the
// IDENTIFY sent to the READY received (the user actor's read, relationships, DMs, read
// states and the guilds' GUILD_CREATEs, which the server prepares before READY goes out),
// and to the last GUILD_CREATE. Target: READY in under 20 ms, judged at the median and at p99. The server's CPU time per
// connect (from /proc) is printed too: unlike wall-clock time, it holds still when the
// machine is busy. BENCH_READY_NODE_ARGS adds options to the server's node (e.g.
// "--cpu-prof --cpu-prof-dir=/tmp/prof").
import { setTimeout as sleep } from "node:timers/promises"
import { intEnv, wordsEnv } from "./env.ts"
import { cpuMs, loadAverage } from "./proc.ts"
import { INTENTS, startScratchServer } from "./scratch-server.ts"

const SETUP_AT_ONCE = 8
const TARGET_MS = 20

/** What one run measured. */
export interface ReadyFigures {
  readonly guilds: number
  readonly connects: number
  readonly readyP50Ms: number
  readonly readyP99Ms: number
  readonly readyMaxMs: number
  readonly lastGuildCreateP50Ms: number
  readonly lastGuildCreateP99Ms: number
  /** The first connect of all, warm-up included: the user's actor may have to load. */
  readonly firstReadyMs: number
  /** Server CPU (user + system) per connect, from open to close. */
  readonly serverCpuMsPerConnect: number
  /** The size of READY's frame. */
  readonly readyBytes: number
  readonly loadAverage: number
}

/** One gateway connection of `token`, timed from IDENTIFY; closed once `guilds` GUILD_CREATEs came. */
const connectOnce = (url: string, token: string, guilds: number) =>
  new Promise<{ readyMs: number; lastCreateMs: number; readyBytes: number }>((resolve, reject) => {
    const socket = new WebSocket(url)
    let identified = 0
    let readyMs = -1
    let readyBytes = 0
    let creates = 0
    const timer = setTimeout(() => {
      socket.close()
      reject(new Error(`no READY and ${guilds} GUILD_CREATEs within 30 s (READY ${readyMs >= 0 ? "came" : "did not come"}, ${creates} GUILD_CREATEs)`))
    }, 30_000)
    socket.addEventListener("message", (event) => {
      const at = performance.now()
      const text = typeof event.data === "string" ? event.data : ""
      if (text.startsWith('{"op":10')) {
        socket.send(JSON.stringify({
          op: 2,
          d: { token, properties: { os: "linux", browser: "bench", device: "bench" }, intents: INTENTS }
        }))
        identified = performance.now()
      } else if (text.startsWith('{"op":0,"t":"READY"')) {
        readyMs = at - identified
        readyBytes = Buffer.byteLength(text)
      } else if (text.startsWith('{"op":0,"t":"GUILD_CREATE"') && ++creates === guilds) {
        clearTimeout(timer)
        const lastCreateMs = at - identified
        socket.addEventListener("close", () => resolve({ readyMs, lastCreateMs, readyBytes }), { once: true })
        socket.close(1000)
      }
    })
    socket.addEventListener("error", () => {
      clearTimeout(timer)
      reject(new Error("the gateway connection failed"))
    })
    socket.addEventListener("close", (e) => {
      if (creates < guilds) {
        clearTimeout(timer)
        reject(new Error(`closed ${e.code} ${e.reason} after ${creates} GUILD_CREATEs`))
      }
    })
  })

export const measureReady = async (options: {
  readonly guilds?: number
  readonly connects?: number
  readonly warmup?: number
  readonly log?: (line: string) => void
} = {}): Promise<ReadyFigures> => {
  const GUILDS = options.guilds ?? intEnv("BENCH_READY_GUILDS", 100)
  const CONNECTS = options.connects ?? intEnv("BENCH_READY_CONNECTS", 100)
  const WARMUP = options.warmup ?? intEnv("BENCH_READY_WARMUP", 5)
  const log = options.log ?? (() => undefined)
  const server = await startScratchServer(wordsEnv("BENCH_READY_NODE_ARGS"))
  try {
    const owner = await server.register()
    const member = await server.register()
    log(`bench ready: ${GUILDS} guilds for one member`)
    const joinOne = async (n: number) => {
      const { code } = await server.guildWithInvite(owner, `Ready bench ${n}`)
      await server.call("POST", `/invites/${code}`, member)
    }
    for (let n = 0; n < GUILDS; n += SETUP_AT_ONCE) {
      await Promise.all(Array.from({ length: Math.min(SETUP_AT_ONCE, GUILDS - n) }, (_, i) => joinOne(n + i)))
    }
    const url = await server.gatewayUrl(member)
    log(`bench ready: ${WARMUP} warm-up + ${CONNECTS} connects to ${url}`)

    let firstReadyMs = Number.NaN
    for (let i = 0; i < WARMUP; i++) {
      const { readyMs } = await connectOnce(url, member, GUILDS)
      if (i === 0) firstReadyMs = readyMs
      await sleep(100)
    }
    const load = loadAverage()
    const ready: Array<number> = []
    const last: Array<number> = []
    let readyBytes = 0
    let cpu = 0
    for (let i = 0; i < CONNECTS; i++) {
      const cpuFrom = cpuMs(server.pid)
      const one = await connectOnce(url, member, GUILDS)
      cpu += cpuMs(server.pid) - cpuFrom
      ready.push(one.readyMs)
      last.push(one.lastCreateMs)
      readyBytes = one.readyBytes
      if (WARMUP === 0 && i === 0) firstReadyMs = one.readyMs
      // The server forgets the closed session before the next one comes.
      await sleep(100)
    }
    ready.sort((a, b) => a - b)
    last.sort((a, b) => a - b)
    const pct = (sorted: ReadonlyArray<number>, p: number) =>
      sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
    return {
      guilds: GUILDS,
      connects: CONNECTS,
      readyP50Ms: pct(ready, 50),
      readyP99Ms: pct(ready, 99),
      readyMaxMs: ready.at(-1) ?? Number.NaN,
      lastGuildCreateP50Ms: pct(last, 50),
      lastGuildCreateP99Ms: pct(last, 99),
      firstReadyMs,
      serverCpuMsPerConnect: cpu / CONNECTS,
      readyBytes,
      loadAverage: load
    }
  } finally {
    await server.stop()
  }
}

/** The figures as the rows of a two-column table. */
export const readyRows = (f: ReadyFigures): Array<[string, string]> => [
  ["guilds of the user", String(f.guilds)],
  ["connects measured", String(f.connects)],
  ["IDENTIFY → READY p50", `${f.readyP50Ms.toFixed(1)} ms`],
  ["IDENTIFY → READY p99", `${f.readyP99Ms.toFixed(1)} ms  (target < ${TARGET_MS})`],
  ["IDENTIFY → READY max", `${f.readyMaxMs.toFixed(1)} ms`],
  ["IDENTIFY → last GUILD_CREATE p50 / p99", `${f.lastGuildCreateP50Ms.toFixed(1)} / ${f.lastGuildCreateP99Ms.toFixed(1)} ms`],
  ["first connect of all (warm-up)", `${f.firstReadyMs.toFixed(1)} ms`],
  ["server CPU per connect", `${f.serverCpuMsPerConnect.toFixed(1)} ms`],
  ["READY frame", `${(f.readyBytes / 1024).toFixed(1)} KB`],
  ["load average (1 min)", f.loadAverage.toFixed(2)]
]

/** The figures as ops/bench/run.ts shows them: a row of its table (connects as the requests) and the target. */
export const readyResults = (f: ReadyFigures) => ({
  run: {
    target: `gateway READY for a user in ${f.guilds} guilds (IDENTIFY → READY, ${f.connects} connects one after another)`,
    url: "/gateway/socket",
    requestsPerSecond: 0,
    latencyP50Ms: f.readyP50Ms,
    latencyP99Ms: f.readyP99Ms,
    latencyAverageMs: f.readyP50Ms,
    latencyMaxMs: f.readyMaxMs,
    requests: f.connects,
    non2xx: 0,
    errors: 0,
    timeouts: 0
  },
  targets: [
    {
      name: `READY for a user in ${f.guilds} guilds < ${TARGET_MS} ms (median of ${f.connects} connects)`,
      measured: `${f.readyP50Ms.toFixed(1)} ms`,
      holds: f.readyP50Ms < TARGET_MS
    },
    {
      name: `READY for a user in ${f.guilds} guilds < ${TARGET_MS} ms (p99 of ${f.connects} connects)`,
      measured: `${f.readyP99Ms.toFixed(1)} ms`,
      holds: f.readyP99Ms < TARGET_MS
    }
  ]
})

if (import.meta.main) {
  try {
    const figures = await measureReady({ log: (line) => process.stderr.write(`${line}\n`) })
    const rows = readyRows(figures)
    const width = Math.max(...rows.map(([k]) => k.length))
    process.stdout.write(`READY benchmark\n${rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`).join("\n")}\n`)
    process.stdout.write(`${JSON.stringify({ ready: figures })}\n`)
  } catch (error) {
    process.stderr.write(`bench ready: ERROR: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  }
}
