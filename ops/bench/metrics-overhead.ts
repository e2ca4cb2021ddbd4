// What recording metrics costs: two embedded servers, one with METRICS=on and one with
// METRICS=off, measured in turns with autocannon on GET /_health, a guild actor's read
// (GET /guilds/{id}) and a message create. Prints each round's throughput and the server's
// CPU time per request (from /proc: steadier than throughput on a shared machine), and the
// medians of on/off. A quick check beside `npm run bench` (which compares whole runs).
// Env: ROUNDS (3), SECONDS (5 per measurement), CONNECTIONS (50).
import autocannon from "autocannon"
import { readFileSync } from "node:fs"
import { setTimeout as sleep } from "node:timers/promises"
import { startScratchServer } from "./scratch-server.ts"

const rounds = Number(process.env["ROUNDS"] ?? 3)
const seconds = Number(process.env["SECONDS"] ?? 5)
const connections = Number(process.env["CONNECTIONS"] ?? 50)

const start = async (metrics: "on" | "off") => {
  // scratch-server.ts passes this process's environment to the server.
  process.env["METRICS"] = metrics
  const server = await startScratchServer([])
  const owner = await server.register()
  const { channelId } = await server.guildWithInvite(owner, "bench")
  const guildId = String((await server.call("GET", `/channels/${channelId}`, owner)).guild_id)
  return { server, owner, channelId, guildId }
}
type Started = Awaited<ReturnType<typeof start>>

const targets: ReadonlyArray<{ name: string; options: (s: Started, base: string) => autocannon.Options }> = [
  { name: "GET /_health", options: (_, base) => ({ url: `${base}/_health` }) },
  {
    name: "GET /guilds/{id}",
    options: (s, base) => ({ url: `${base}/guilds/${s.guildId}`, headers: { authorization: s.owner } })
  },
  {
    name: "POST /channels/{id}/messages",
    options: (s, base) => ({
      url: `${base}/channels/${s.channelId}/messages`,
      method: "POST",
      headers: { authorization: s.owner, "content-type": "application/json" },
      body: JSON.stringify({ content: "bench" })
    })
  }
]

/** CPU seconds (user and system) process `pid` has used so far (Linux). */
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? []
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command; in ticks of 1/100 s.
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** Requests per second, and the server's CPU microseconds per request. */
const measure = async (pid: number, options: autocannon.Options) => {
  await autocannon({ connections, duration: 2, timeout: 10, ...options })
  const cpuBefore = cpuSeconds(pid)
  const result = await autocannon({ connections, duration: seconds, timeout: 10, ...options })
  const cpu = cpuSeconds(pid) - cpuBefore
  await sleep(500)
  const requests = result.requests.total ?? result["2xx"] + result.non2xx
  return { perSecond: result.requests.average, cpuMicros: (cpu * 1e6) / Math.max(1, requests) }
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

const on = await start("on")
const off = await start("off")
try {
  const bases = { on: on.server.base, off: off.server.base }
  for (const target of targets) {
    const throughput: Array<number> = []
    const cpu: Array<number> = []
    for (let round = 0; round < rounds; round++) {
      // Turns alternate which one goes first: the later run of a pair finds a busier database and a warmer machine.
      const onFirst = round % 2 === 0
      const runOn = () => measure(on.server.pid, target.options(on, bases.on))
      const runOff = () => measure(off.server.pid, target.options(off, bases.off))
      const a = await (onFirst ? runOn() : runOff())
      const b = await (onFirst ? runOff() : runOn())
      const [withMetrics, without] = onFirst ? [a, b] : [b, a]
      throughput.push(withMetrics.perSecond / without.perSecond)
      cpu.push(without.cpuMicros / withMetrics.cpuMicros)
      process.stdout.write(
        `${target.name} round ${round + 1}: on ${withMetrics.perSecond.toFixed(0)} req/s ${withMetrics.cpuMicros.toFixed(1)} µs CPU/req, ` +
          `off ${without.perSecond.toFixed(0)} req/s ${without.cpuMicros.toFixed(1)} µs CPU/req\n`
      )
    }
    process.stdout.write(
      `${target.name}: median on/off throughput ${(median(throughput) * 100).toFixed(1)}%, ` +
        `requests per CPU second ${(median(cpu) * 100).toFixed(1)}%\n`
    )
  }
} finally {
  await on.server.stop()
  await off.server.stop()
}
