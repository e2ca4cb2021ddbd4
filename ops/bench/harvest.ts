// `node ops/bench/harvest.ts`: a user's data export of BENCH_HARVEST_MESSAGES (100,000)
// messages, on the embedded server in a child process (scratch-server.ts) with its
// ARCHIVE_* defaults. The messages go straight into Postgres (one INSERT ... SELECT
// generate_series) in one guild channel of the user's, with 80 characters of text each.
// Then POST /users/@me/harvest; while the job runs, the server's resident memory is read
// from /proc every 100 ms and the guild is asked for its newest 50 messages every 250 ms,
// to show it keeps answering. Printed: the export's time (asked to completed, as the
// server's timestamps say), the RSS before and at its highest (target: under 100 MB
// more), the zip's size and the guild's slowest and median answers meanwhile.
// The last line is the figures as JSON.
import { setTimeout as sleep } from "node:timers/promises"
import { intEnv } from "./env.ts"
import { runSql } from "./member-seed.ts"
import { rssBytes } from "./proc.ts"
import { startScratchServer } from "./scratch-server.ts"

const MESSAGES = intEnv("BENCH_HARVEST_MESSAGES", 100_000)
const TARGET_MB = 100
const SNOWFLAKE_EPOCH = 1420070400000n
const mb = (bytes: number) => Math.round((bytes / 1048576) * 100) / 100

const server = await startScratchServer([], { ARCHIVE_JOB_SWEEP_SECONDS: "1" })
try {
  const token = await server.register()
  const me = String((await server.call("GET", "/users/@me", token)).id)
  const { channelId } = await server.guildWithInvite(token, "export bench")
  const guildId = String((await server.call("GET", `/channels/${channelId}`, token)).guild_id)
  // Snowflakes from now on, one millisecond apart, above any the server made.
  const first = (BigInt(Date.now()) - SNOWFLAKE_EPOCH) << 22n
  await runSql(server.databaseUrl, [
    `INSERT INTO messages (channel_id, id, guild_id, author_id, content, created_at)
     SELECT ${channelId}, ${first} + (i::bigint << 22), ${guildId}, ${me},
            'message ' || i || ' ' || repeat('abcdefgh', 10), now()
     FROM generate_series(1, ${MESSAGES}) AS i`,
    "ANALYZE messages"
  ])

  const baseline = rssBytes(server.pid)
  let peak = baseline
  const latencies: Array<number> = []
  let running = true
  const sampler = (async () => {
    while (running) {
      peak = Math.max(peak, rssBytes(server.pid))
      await sleep(100)
    }
  })()
  const prober = (async () => {
    while (running) {
      const start = performance.now()
      const reply = await fetch(`${server.base}/channels/${channelId}/messages?limit=50`, { headers: { authorization: token } })
      await reply.arrayBuffer()
      if (reply.status !== 200) throw new Error(`the guild answered ${reply.status}`)
      latencies.push(performance.now() - start)
      await sleep(250)
    }
  })()

  const harvestId = String((await server.call("POST", "/users/@me/harvest", token)).harvest_id)
  let status = await server.call("GET", `/users/@me/harvest/${harvestId}`, token)
  while (status.status === "pending" || status.status === "processing") {
    await sleep(200)
    status = await server.call("GET", `/users/@me/harvest/${harvestId}`, token)
  }
  running = false
  await Promise.all([sampler, prober.catch((error: unknown) => console.error(error))])
  if (status.status !== "completed") throw new Error(`the export ended ${JSON.stringify(status)}`)

  const seconds = (Date.parse(String(status.completed_at)) - Date.parse(String(status.created_at))) / 1000
  const sorted = [...latencies].sort((a, b) => a - b)
  const figures = {
    messages: MESSAGES,
    seconds,
    rssBeforeMb: mb(baseline),
    rssPeakMb: mb(peak),
    rssGrowthMb: mb(peak - baseline),
    zipMb: mb(Number(status.file_size)),
    guildReads: sorted.length,
    guildReadMedianMs: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0),
    guildReadMaxMs: Math.round(sorted.at(-1) ?? 0)
  }
  console.log(`export of ${MESSAGES} messages: ${seconds} s, zip ${figures.zipMb} MB`)
  console.log(`server RSS ${figures.rssBeforeMb} MB before, ${figures.rssPeakMb} MB at most: +${figures.rssGrowthMb} MB (target < ${TARGET_MB})`)
  console.log(`guild reads meanwhile: ${figures.guildReads}, median ${figures.guildReadMedianMs} ms, slowest ${figures.guildReadMaxMs} ms`)
  console.log(JSON.stringify(figures))
} finally {
  await server.stop()
}
