// A shard process's start time and memory: from spawn to its first stats record in
// Redis (the runner is up, its layers built), and its resident memory two seconds later.
//
//   node ops/bench/shard-startup.ts [ROOT]      (ROOT: the checkout to measure, default this one)
//
// Needs DATABASE_URL (default: the local database `guildhall_startup`, `createdb guildhall_startup`; the schema is applied by the first,
// unmeasured start) and the local Redis; each start uses a key prefix of its own.
import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { resolve } from "node:path"
import { Redis } from "ioredis"
import { rssBytes } from "./proc.ts"
import { freePort } from "./scratch-server.ts"
import { serverNodeFlags } from "./server-flags.ts"

const root = resolve(process.argv[2] ?? resolve(import.meta.dirname, "..", ".."))
const NODE = resolve(root, "node_modules", ".bin", "node")
const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/guildhall_startup"
const REDIS_URL = "redis://127.0.0.1:6379"
const RUNS = 5

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

const startOnce = async (redis: Redis): Promise<{ readyMs: number; rssMb: number }> => {
  const prefix = `guildhall-startup-${randomUUID().slice(0, 8)}:`
  const started = performance.now()
  const child: ChildProcess = spawn(NODE, [...serverNodeFlags(root), resolve(root, "shards/main.ts")], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", DATABASE_URL, REDIS_URL, REDIS_KEY_PREFIX: prefix, SHARD_PORT: String(await freePort()) },
    stdio: ["ignore", "ignore", "inherit"]
  })
  try {
    const deadline = started + 60_000
    while ((await redis.keys(`${prefix}stats:*`)).length === 0) {
      if (performance.now() > deadline || child.exitCode !== null) throw new Error("the shard process did not start")
      await sleep(10)
    }
    const readyMs = performance.now() - started
    await sleep(2_000)
    return { readyMs, rssMb: rssBytes(child.pid ?? 0) / 2 ** 20 }
  } finally {
    child.kill("SIGKILL")
    await redis.eval(`for _, k in ipairs(redis.call('keys', ARGV[1])) do redis.call('del', k) end`, 0, `${prefix}*`)
  }
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0

const redis = new Redis(REDIS_URL)
await startOnce(redis) // applies the schema if the database lacks it; not measured
const runs = []
for (let i = 0; i < RUNS; i++) runs.push(await startOnce(redis))
redis.disconnect()
console.log(JSON.stringify({
  root,
  runs: RUNS,
  startMs: Math.round(median(runs.map((r) => r.readyMs))),
  rssMb: Number(median(runs.map((r) => r.rssMb)).toFixed(1)),
  all: runs.map((r) => ({ startMs: Math.round(r.readyMs), rssMb: Number(r.rssMb.toFixed(1)) }))
}))
