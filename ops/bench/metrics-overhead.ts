// What recording metrics costs: two embedded servers, one with METRICS=on and one with
// METRICS=off, measured in turns with autocannon on GET /_health, a guild actor's read
// (GET /guilds/{id}) and a message create; prints each round and the median ratio on/off.
// A quick check beside `npm run bench` (which compares whole runs). Env: ROUNDS (3),
// SECONDS (5 per measurement), CONNECTIONS (50). The machine should be otherwise idle.
import autocannon from "autocannon"
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

const measure = async (options: autocannon.Options) => {
  const result = await autocannon({ connections, duration: seconds, timeout: 10, warmup: { connections, duration: 2 }, ...options })
  await sleep(500)
  return result.requests.average
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

const on = await start("on")
const off = await start("off")
try {
  const bases = { on: on.server.base, off: off.server.base }
  for (const target of targets) {
    const ratios: Array<number> = []
    for (let round = 0; round < rounds; round++) {
      // Turns alternate which one goes first: the later run of a pair finds a busier database and a warmer machine.
      const first = round % 2 === 0 ? "on" : "off"
      const a = await measure(first === "on" ? target.options(on, bases.on) : target.options(off, bases.off))
      const b = await measure(first === "on" ? target.options(off, bases.off) : target.options(on, bases.on))
      const [withMetrics, without] = first === "on" ? [a, b] : [b, a]
      ratios.push(withMetrics / without)
      process.stdout.write(`${target.name} round ${round + 1}: on ${withMetrics.toFixed(0)} req/s, off ${without.toFixed(0)} req/s\n`)
    }
    process.stdout.write(`${target.name}: on/off median ${(median(ratios) * 100).toFixed(1)}%\n`)
  }
} finally {
  await on.server.stop()
  await off.server.stop()
}
