// `npm run bench`: how fast Guildhall answers on loopback, next to a bare node:http floor.
//
// In one run:
//   1. boots the embedded server (`node_modules/.bin/node src/main.ts`: no DATABASE_URL,
//      no REDIS_URL, a fresh temporary DATA_DIR, a free port), waits
//      for GET /_health, registers a user and creates a guild;
//   2. starts ops/bench/bare-health.ts, a bare node:http server answering the same body;
//   3. measures with autocannon, each after a warm-up: the bare server's /_health, our
//      GET /_health, GET /guilds/{id} with the user's token (the guild actor's read,
//      served from the state the actor published in this process) and GET /users/@me (the
//      user actor's read, served the same way); then, for reference,
//      the same read on a second embedded server started with ACTOR_LOCAL_READS=off, where
//      every read is a message through the actor's mailbox (the path of cluster mode);
//   4. (embedded mode) boots one more server on a scratch Postgres database (BENCH_PG_URL,
//      default postgres://postgres@127.0.0.1:5432/postgres), seeds guilds of 1,000, 10,000 and
//      100,000 members straight into it (ops/bench/member-seed.ts), and measures, in rounds judged by
//      their median, /_health on that server, a member nick change (PATCH
//      /guilds/{id}/members/{user_id}), a user's settings change (PATCH /users/@me/settings,
//      the user actor's write), and (ops/bench/messages.ts) the raw Postgres insert
//      rate of one message row per statement through the same driver, message create in one
//      channel and spread over 100, and GET /channels/{id}/messages?limit=50; then member
//      search (POST /guilds/{id}/members-search) and the settings PATCH once, then member search
//      and the nick change on the 100,000-member guild with /_health beside them; then
//      (ops/bench/gateway.ts) 10,000 gateway sessions in one guild, one message a second:
//      delivery latency from the POST's reply to each session and memory per idle session,
//      then 10,000 more on a new server connecting as a storm spread over 30 s: the time until
//      all are READY, and /_health's p99 meanwhile;
//      then (ops/bench/gateway-ready.ts) IDENTIFY to READY for a user in 100 guilds,
//      (ops/bench/user-memory.ts, a process of its own) the heap of an idle user actor, and
//      (ops/bench/guild-memory.ts, another) the load time and heap of guild actors of 10,000
//      and 100,000 members; then
//      (ops/bench/observability.ts) health, the guild actor's read and message create on two
//      servers, one with metrics off and no traces, one with metrics on and every trace
//      exported to a local OTLP receiver; then (ops/bench/cluster.ts) the guild actor's read,
//      a member update, message create and message list on one API and two shard processes
//      beside an embedded server, as ratios of the embedded figures;
//   5. prints a markdown table and the targets (actor >= 60% of health and actor p99 < 10 ms;
//      GET /users/@me >= 80% of the guild actor's read; health >= 40% of bare; member update
//      and the user settings write >= 30% of health, member search p99 < 20 ms;
//      message create >= 50% of raw inserts with p99 < 25 ms, message list >= 40% of health;
//      gateway delivery p99 < 100 ms and < 20 KB per idle session at 10,000 sessions, a storm
//      of 10,000 all READY within 60 s with health's p99 < 100 ms meanwhile; READY for a user in 100
//      guilds < 20 ms at the median and p99; an idle user actor < 4 KB; a guild actor of 10,000
//      members < 20 MB, of 100,000 < 80 MB and loaded in < 2 s, where member update and
//      search keep their targets; with metrics and
//      traces each of the three >= 90% of without; in cluster mode reads >= 50% and writes >= 60% of embedded),
//      and writes the figures to ops/bench/results.json.
// Child processes are stopped on exit, on error and on Ctrl-C; the run is bounded in time.
//
// Env: BENCH_ROUNDS (rounds of bare, health and the actor reads, and of the write targets; the median
//   round counts, default 3),
//   BENCH_SECONDS (measured seconds per target, default 10), BENCH_WARMUP_SECONDS (3),
//   BENCH_CONNECTIONS (50), BENCH_BOOT_SECONDS (how long the server may take to answer
//   /_health, 90), BENCH_RESULTS (where to write the JSON, default ops/bench/results.json),
//   BENCH_SERVER_URL (measure an already running server on loopback instead of booting
//   one, e.g. the cluster of ops/cluster.sh),
//   BENCH_BARE_ONLY=1 (measure the bare server alone: a check of the harness; writes JSON
//   only when BENCH_RESULTS is set), BENCH_WRITES_ONLY=1 (step 4 without the gateway, READY and memory: the
//   member and message targets alone, for working on the write path; writes JSON only when
//   BENCH_RESULTS is set), BENCH_PROFILE_DIR (a directory for each server's V8 CPU profile).
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { join, relative } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import autocannon from "autocannon"
import { scratchDatabase, seedMembers } from "./member-seed.ts"
import { freePort, NODE, root } from "./scratch-server.ts"
import { serverNodeFlags } from "./server-flags.ts"
import { type BenchTools, prepareMessages } from "./messages.ts"

/** A failure with a message for the operator (no stack trace needed). */
class BenchError extends Error {}

const intEnv = (name: string, fallback: number, min: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min) {
    throw new BenchError(`${name} must be a whole number >= ${min}, not "${raw}"`)
  }
  return value
}

const flagEnv = (name: string): boolean => ["1", "true", "yes"].includes((process.env[name] ?? "").toLowerCase())

// --- child processes ----------------------------------------------------------------

interface Child {
  readonly name: string
  readonly proc: ChildProcess
  /** The last lines of its stdout and stderr, for error messages. */
  readonly output: Array<string>
  exit: string | undefined
}

const children: Array<Child> = []

// BENCH_PROFILE_DIR: each server writes a V8 CPU profile there when it stops (node refuses --cpu-prof in NODE_OPTIONS).
const profileDir = process.env["BENCH_PROFILE_DIR"]
const profiling = profileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`]

const startChild = (name: string, script: string, env: NodeJS.ProcessEnv, flags: ReadonlyArray<string> = []): Child => {
  const proc = spawn(NODE, [...profiling, ...flags, script], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] })
  const child: Child = { name, proc, output: [], exit: undefined }
  let partial = ""
  const collect = (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split("\n")
    partial = lines.pop() ?? ""
    child.output.push(...lines)
    if (child.output.length > 200) child.output.splice(0, child.output.length - 200)
  }
  proc.stdout?.on("data", collect)
  proc.stderr?.on("data", collect)
  proc.on("error", (error) => {
    child.exit ??= `could not be started: ${error.message}`
  })
  proc.on("exit", (code, signal) => {
    if (partial !== "") child.output.push(partial)
    child.exit ??= signal === null ? `exit code ${code}` : `signal ${signal}`
  })
  children.push(child)
  return child
}

const tail = (child: Child, lines = 40): string =>
  child.output.length === 0
    ? `  (${child.name} printed nothing)`
    : `---- last lines of ${child.name} ----\n${child.output.slice(-lines).join("\n")}\n----`

/** SIGTERM to every child still running, SIGKILL after 5 s to what is left. */
const stopChildren = async (): Promise<void> => {
  const running = () => children.filter((c) => c.exit === undefined && c.proc.pid !== undefined)
  for (const child of running()) child.proc.kill("SIGTERM")
  const deadline = Date.now() + 5_000
  while (running().length > 0 && Date.now() < deadline) await sleep(50)
  for (const child of running()) {
    process.stderr.write(`bench: ${child.name} (pid ${child.proc.pid}) ignored SIGTERM: SIGKILL\n`)
    child.proc.kill("SIGKILL")
  }
  const killDeadline = Date.now() + 2_000
  while (running().length > 0 && Date.now() < killDeadline) await sleep(50)
}

// Last resort when the process exits some other way: never leave a server behind.
process.on("exit", () => {
  for (const child of children) if (child.exit === undefined) child.proc.kill("SIGKILL")
})

const cleanups: Array<() => void> = []
let shuttingDown = false
const shutdown = async (code: number): Promise<never> => {
  if (!shuttingDown) {
    shuttingDown = true
    await stopChildren()
    for (const cleanup of cleanups) cleanup()
  }
  process.exit(code)
}
process.on("SIGINT", () => void shutdown(130))
process.on("SIGTERM", () => void shutdown(143))

// --- HTTP -----------------------------------------------------------------------------

interface Reply {
  readonly status: number
  readonly text: string
  readonly contentType: string | null
}

const call = async (method: string, url: string, body?: unknown, token?: string): Promise<Reply> => {
  const headers: Record<string, string> = {}
  if (body !== undefined) headers["content-type"] = "application/json"
  if (token !== undefined) headers["authorization"] = token
  const res = await fetch(url, {
    method,
    headers,
    body: body === undefined ? null : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000)
  })
  return { status: res.status, text: await res.text(), contentType: res.headers.get("content-type") }
}

/** Calls and expects 200 with a JSON object, or fails with what came back instead. */
const callJson = async (what: string, method: string, url: string, body?: unknown, token?: string) => {
  const reply = await call(method, url, body, token)
  if (reply.status !== 200) {
    throw new BenchError(`${what}: ${method} ${url} answered ${reply.status}: ${reply.text.slice(0, 500)}`)
  }
  try {
    return JSON.parse(reply.text) as Record<string, unknown>
  } catch {
    throw new BenchError(`${what}: ${method} ${url} answered 200 but not JSON: ${reply.text.slice(0, 500)}`)
  }
}

const waitForHealth = async (url: string, child: Child | undefined, timeoutSeconds: number): Promise<Reply> => {
  const deadline = Date.now() + timeoutSeconds * 1000
  let last = "no answer yet"
  for (;;) {
    if (child?.exit !== undefined) {
      throw new BenchError(`${child.name} stopped (${child.exit}) before ${url} answered 200\n${tail(child)}`)
    }
    try {
      const reply = await call("GET", url)
      if (reply.status === 200) return reply
      last = `HTTP ${reply.status}: ${reply.text.slice(0, 200)}`
    } catch (error) {
      last = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)
    }
    if (Date.now() > deadline) {
      throw new BenchError(
        `${url} did not answer 200 within ${timeoutSeconds}s (last: ${last})${child ? `\n${tail(child)}` : ""}`
      )
    }
    await sleep(250)
  }
}

const isLoopback = (url: URL): boolean => ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)

// --- the three targets ----------------------------------------------------------------

/** Boots the embedded server on a free port with a fresh data directory. */
const bootEmbedded = async (bootSeconds: number, extraEnv: NodeJS.ProcessEnv = {}): Promise<{ base: string; health: Reply }> => {
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), "guildhall-bench-"))
  // Runs after the children are stopped.
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }))
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: "127.0.0.1",
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_REQUESTS: "false",
    // Throughput is what is measured: at 50 connections one user passes any per-user limit.
    RATE_LIMITS: "off",
    ...extraEnv
  }
  // Embedded mode: one process, PGlite, no Redis, whatever the caller's shell has set.
  delete env["DATABASE_URL"]
  delete env["REDIS_URL"]
  // The member targets run on Postgres, where their big guilds are seeded.
  if (extraEnv["DATABASE_URL"] !== undefined) env["DATABASE_URL"] = extraEnv["DATABASE_URL"]
  const base = `http://127.0.0.1:${port}`
  process.stdout.write(`bench: booting the embedded server (src/main.ts) on ${base}, DATA_DIR ${dataDir}\n`)
  const server = startChild("server", "src/main.ts", env, serverNodeFlags(root))
  const started = Date.now()
  const health = await waitForHealth(`${base}/_health`, server, bootSeconds)
  process.stdout.write(`bench: server answers /_health after ${((Date.now() - started) / 1000).toFixed(1)}s\n`)
  return { base, health }
}

/** A new user and a guild of theirs: the token and the guild's URL. */
const makeGuild = async (base: string): Promise<{ token: string; guildUrl: string }> => {
  const tag = randomUUID().replaceAll("-", "").slice(0, 12)
  const registered = await callJson("register a user", "POST", `${base}/auth/register`, {
    email: `bench-${tag}@example.com`,
    username: `bench_${tag}`,
    password: `bench-${randomUUID()}`,
    date_of_birth: "2000-01-01",
    consent: true
  })
  const token = registered["token"]
  if (typeof token !== "string") throw new BenchError(`register: no "token" in ${JSON.stringify(registered)}`)
  const guild = await callJson("create a guild", "POST", `${base}/guilds`, { name: "bench" }, token)
  const id = guild["id"]
  if (typeof id !== "string" && typeof id !== "number") {
    throw new BenchError(`create a guild: no "id" in ${JSON.stringify(guild).slice(0, 500)}`)
  }
  const guildUrl = `${base}/guilds/${id}`
  await callJson("read the guild", "GET", guildUrl, undefined, token)
  return { token, guildUrl }
}

/** Starts bare-health.ts answering `body`; its /_health URL. */
const startBare = async (body: string, contentType: string): Promise<string> => {
  const bare = startChild("bare-health", join("ops", "bench", "bare-health.ts"), {
    ...process.env,
    BARE_PORT: "0",
    BARE_BODY: body,
    BARE_CONTENT_TYPE: contentType
  })
  const deadline = Date.now() + 15_000
  for (;;) {
    const line = bare.output.find((l) => l.startsWith('{"port":'))
    if (line !== undefined) {
      const url = `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}/_health`
      await waitForHealth(url, bare, 5)
      return url
    }
    if (bare.exit !== undefined) throw new BenchError(`bare-health stopped (${bare.exit})\n${tail(bare)}`)
    if (Date.now() > deadline) throw new BenchError(`bare-health did not start within 15s\n${tail(bare)}`)
    await sleep(50)
  }
}

/**
 * The memory of an idle user actor (issue 18): ops/bench/user-memory.ts in a process of its
 * own, as it needs --expose-gc and a heap with nothing else growing in it.
 */
const measureUserMemory = async (): Promise<Target> => {
  const { userMemoryOf, userMemoryTarget } = await import("./user-memory.ts")
  process.stdout.write("bench: idle user actors (node --expose-gc ops/bench/user-memory.ts)\n")
  const child = startChild("user-memory", join("ops", "bench", "user-memory.ts"), process.env, ["--expose-gc"])
  while (child.exit === undefined) await sleep(250)
  const figures = child.output.map(userMemoryOf).find((f) => f !== undefined)
  if (child.exit !== "exit code 0" || figures === undefined) {
    throw new BenchError(`user-memory stopped (${child.exit}) without its figures\n${tail(child)}`)
  }
  return userMemoryTarget(figures)
}

/**
 * What a guild actor of 10,000 and of 100,000 members takes to load and holds (issues 16 and
 * 25): ops/bench/guild-memory.ts in a process of its own, for the same reasons.
 */
const measureGuildMemory = async (): Promise<ReadonlyArray<Target>> => {
  const { guildMemoryOf, guildMemoryTargets } = await import("./guild-memory.ts")
  process.stdout.write("bench: big guild actors (node --expose-gc ops/bench/guild-memory.ts)\n")
  // With the server's own flags: its young generation's size is much of a big load's time.
  const child = startChild("guild-memory", join("ops", "bench", "guild-memory.ts"), process.env, [
    "--expose-gc",
    ...serverNodeFlags(root)
  ])
  while (child.exit === undefined) await sleep(250)
  const figures = child.output.map(guildMemoryOf).find((f) => f !== undefined)
  if (child.exit !== "exit code 0" || figures === undefined) {
    throw new BenchError(`guild-memory stopped (${child.exit}) without its figures\n${tail(child)}`)
  }
  return figures.flatMap(guildMemoryTargets)
}

// --- measuring -----------------------------------------------------------------------

interface Figures {
  readonly target: string
  readonly url: string
  readonly requestsPerSecond: number
  readonly latencyP50Ms: number
  readonly latencyP99Ms: number
  readonly latencyAverageMs: number
  readonly latencyMaxMs: number
  readonly requests: number
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
}

interface Load {
  readonly rounds: number
  readonly seconds: number
  readonly warmupSeconds: number
  readonly connections: number
}

const measure = async (
  target: string,
  url: string,
  load: Load,
  headers: Record<string, string> = {},
  extra: Partial<autocannon.Options> = {}
): Promise<Figures> => {
  process.stdout.write(
    `bench: ${target}: ${extra.method ?? "GET"} ${url}, ${load.warmupSeconds}s warm-up + ${load.seconds}s at ${load.connections} connections\n`
  )
  const result = await autocannon({
    url,
    headers,
    connections: load.connections,
    duration: load.seconds,
    timeout: 10,
    ...(load.warmupSeconds > 0 ? { warmup: { connections: load.connections, duration: load.warmupSeconds } } : {}),
    ...extra
  })
  const figures: Figures = {
    target,
    url,
    requestsPerSecond: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyAverageMs: result.latency.average,
    latencyMaxMs: result.latency.max,
    requests: result.requests.total ?? result["2xx"] + result.non2xx,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts
  }
  // Let the load generator's sockets close before the next target.
  await sleep(1_000)
  return figures
}

const clean = (f: Figures) => f.non2xx === 0 && f.errors === 0 && f.timeouts === 0

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })

const table = (runs: Array<Figures>): string =>
  [
    "| target | requests/s | p50 (ms) | p99 (ms) | requests | non-2xx / errors / timeouts |",
    "|---|---:|---:|---:|---:|---:|",
    ...runs.map((f) =>
      `| ${f.target} | ${fmt(f.requestsPerSecond)} | ${fmt(f.latencyP50Ms, 1)} | ${fmt(f.latencyP99Ms, 1)} | ${
        fmt(f.requests)
      } | ${f.non2xx} / ${f.errors} / ${f.timeouts} |`
    )
  ].join("\n")

/** The read ratios of the first rounds, each of its median round. */
interface Ratios {
  readonly actorOverHealth: number
  readonly healthOverBare: number
  readonly meOverActor: number
}

interface Target {
  readonly name: string
  readonly measured: string
  readonly holds: boolean
}

const gitCommit = (): string | null => {
  const out = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" })
  return out.status === 0 ? out.stdout.trim() : null
}

/** The tools ops/bench/messages.ts measures with: this file's load, measure and checked calls, as `token`. */
const messageTools = (load: Load, token: string): BenchTools<Figures> => ({
  connections: load.connections,
  seconds: load.seconds,
  measure: (target, url, extra) => {
    const headers = { authorization: token, "content-type": "application/json" }
    const { method = "GET", body, path } = extra
    return measure(target, url, load, headers, {
      method,
      requests: [{
        method,
        setupRequest: (req) => ({
          ...req,
          ...(body === undefined ? {} : { body: body() }),
          ...(path === undefined ? {} : { path: path() })
        })
      }]
    })
  },
  callJson: (what, method, url, body) => callJson(what, method, url, body, token)
})

// --- members (issue 4) ------------------------------------------------------------------

/** The item whose `by` is the median (this machine's speed drifts: rounds, then the middle one). */
const median = <A>(items: ReadonlyArray<A>, by: (a: A) => number): A =>
  [...items].sort((a, b) => by(a) - by(b))[Math.floor(items.length / 2)]!

/**
 * The member targets, on an embedded server backed by a scratch Postgres database
 * (BENCH_PG_URL) where the big guilds are seeded directly (ops/bench/member-seed.ts):
 * a nick change on a guild of 1,000 members, member search on one of 10,000, and
 * /_health on the same server for the ratio.
 */
const measureMembers = async (bootSeconds: number, load: Load): Promise<{ runs: Array<Figures>; targets: Array<Target> }> => {
  const db = await scratchDatabase()
  try {
    const adminKey = randomUUID()
    const server = await bootEmbedded(bootSeconds, { DATABASE_URL: db.url, ADMIN_BOOTSTRAP_KEY: adminKey })
    const seeded = async (count: number) => {
      const guild = await makeGuild(server.base)
      const guildId = guild.guildUrl.slice(guild.guildUrl.lastIndexOf("/") + 1)
      process.stdout.write(`bench: seeding ${count} members into guild ${guildId}\n`)
      const memberIds = await seedMembers(db.url, guildId, count)
      await callJson("reload the seeded guild", "POST", `${server.base}/admin/guilds/reload`, { guild_id: guildId }, `Admin ${adminKey}`)
      return { ...guild, memberIds }
    }
    const small = await seeded(1_000)
    const big = await seeded(10_000)
    // Issue 25: a guild of 100,000 members keeps the member targets.
    const huge = await seeded(100_000)
    const json = { authorization: small.token, "content-type": "application/json" }
    let nick = 0
    let compact = 0
    const messages = await prepareMessages(messageTools(load, small.token), {
      base: server.base,
      guildUrl: small.guildUrl,
      databaseUrl: db.url,
      ownerId: String((await callJson("who am I", "GET", `${server.base}/users/@me`, undefined, small.token))["id"])
    })
    // Rounds of health, member update and the message targets back to back: each ratio compares
    // targets measured moments apart, and the median round of each stands for the run.
    interface Round {
      readonly health: Figures
      readonly update: Figures
      readonly userSettings: Figures
      readonly rawInsert: Figures
      readonly hotCreate: Figures
      readonly spreadCreate: Figures
      readonly list: Figures
      readonly webhookExecute: Figures
    }
    const rounds: Array<Round> = []
    for (let round = 1; round <= load.rounds; round++) {
      const tag = load.rounds > 1 ? ` [round ${round}/${load.rounds}]` : ""
      const health = await measure(`GET /_health (Postgres-backed server)${tag}`, `${server.base}/_health`, load)
      const update = await measure(
        `PATCH /guilds/{id}/members/{user_id} (nick, 1,000 members)${tag}`,
        `${small.guildUrl}/members/${small.memberIds[0]}`,
        load,
        json,
        {
          method: "PATCH",
          requests: [{ method: "PATCH", setupRequest: (req) => ({ ...req, body: JSON.stringify({ nick: `nick ${nick++ % 100_000}` }) }) }]
        }
      )
      // The user actor's write (issue 18): the same user's settings, a toggle each time.
      const userSettings = await measure(
        `PATCH /users/@me/settings (user actor)${tag}`,
        `${server.base}/users/@me/settings`,
        load,
        json,
        {
          method: "PATCH",
          requests: [{
            method: "PATCH",
            setupRequest: (req) => ({ ...req, body: JSON.stringify({ message_display_compact: compact++ % 2 === 0 }) })
          }]
        }
      )
      const { insertRate, ...created } = await messages.round(tag)
      const rawInsert: Figures = {
        target: `raw Postgres INSERT, one message row per statement (reference)${tag}`,
        url: db.url.replace(/\/\/[^@]*@/, "//"),
        requestsPerSecond: insertRate,
        latencyP50Ms: 0,
        latencyP99Ms: 0,
        latencyAverageMs: 0,
        latencyMaxMs: 0,
        requests: Math.round(insertRate * load.seconds),
        non2xx: 0,
        errors: 0,
        timeouts: 0
      }
      rounds.push({ health, update, userSettings, rawInsert, ...created })
    }
    // The floor of any guild write (actor mailbox, commit, audit): the settings PATCH, for reference.
    let name = 0
    const settings = await measure("PATCH /guilds/{id} (settings write, reference)", small.guildUrl, load, json, {
      method: "PATCH",
      requests: [{ method: "PATCH", setupRequest: (req) => ({ ...req, body: JSON.stringify({ name: `bench ${name++ % 100_000}` }) }) }]
    })
    const queries = ["member 12", "nick 5", "m", "member 9999", "zzz"]
    let q = 0
    const searchIn = (guild: typeof big, members: string) =>
      measure(
        `POST /guilds/{id}/members-search (${members} members)`,
        `${guild.guildUrl}/members-search`,
        load,
        { authorization: guild.token, "content-type": "application/json" },
        {
          method: "POST",
          requests: [{ method: "POST", setupRequest: (req) => ({ ...req, body: JSON.stringify({ query: queries[q++ % queries.length], limit: 25 }) }) }]
        }
      )
    const search = await searchIn(big, "10,000")
    const hugeSearch = await searchIn(huge, "100,000")
    const hugeUpdate = await measure(
      "PATCH /guilds/{id}/members/{user_id} (nick, 100,000 members)",
      `${huge.guildUrl}/members/${huge.memberIds[0]}`,
      load,
      { authorization: huge.token, "content-type": "application/json" },
      {
        method: "PATCH",
        requests: [{ method: "PATCH", setupRequest: (req) => ({ ...req, body: JSON.stringify({ nick: `nick ${nick++ % 100_000}` }) }) }]
      }
    )
    const hugeHealth = await measure("GET /_health (Postgres-backed server, beside the 100,000-member update)", `${server.base}/_health`, load)
    const ratioTarget = (name: string, ratio: (r: Round) => number, floor: number): Target => {
      const measured = ratio(median(rounds, ratio))
      return { name: `${name} (median round)`, measured: `${fmt(measured * 100, 1)}%`, holds: measured >= floor }
    }
    const p99Target = (name: string, figures: (r: Round) => Figures, limitMs: number): Target => {
      const measured = figures(median(rounds, (r) => figures(r).latencyP99Ms)).latencyP99Ms
      return { name: `${name} (median round)`, measured: `${fmt(measured, 1)} ms`, holds: measured < limitMs }
    }
    return {
      runs: [
        ...rounds.flatMap((r) => [r.health, r.update, r.userSettings, r.rawInsert, r.hotCreate, r.spreadCreate, r.list, r.webhookExecute]),
        settings,
        search,
        hugeSearch,
        hugeUpdate,
        hugeHealth
      ],
      targets: [
        ratioTarget("message create (one channel) >= 50% of raw inserts", (r) => r.hotCreate.requestsPerSecond / r.rawInsert.requestsPerSecond, 0.5),
        p99Target("message create (one channel) p99 < 25 ms", (r) => r.hotCreate, 25),
        ratioTarget("message create (100 channels) >= 50% of raw inserts", (r) => r.spreadCreate.requestsPerSecond / r.rawInsert.requestsPerSecond, 0.5),
        p99Target("message create (100 channels) p99 < 25 ms", (r) => r.spreadCreate, 25),
        ratioTarget(
          "webhook execute >= 50% of message create (one channel each)",
          (r) => r.webhookExecute.requestsPerSecond / r.hotCreate.requestsPerSecond,
          0.5
        ),
        ratioTarget("message list >= 40% of health", (r) => r.list.requestsPerSecond / r.health.requestsPerSecond, 0.4),
        ratioTarget("member update >= 30% of health (requests/s, same server)", (r) => r.update.requestsPerSecond / r.health.requestsPerSecond, 0.3),
        ratioTarget(
          "PATCH /users/@me/settings >= 30% of health (requests/s, same server)",
          (r) => r.userSettings.requestsPerSecond / r.health.requestsPerSecond,
          0.3
        ),
        { name: "member search p99 < 20 ms", measured: `${fmt(search.latencyP99Ms, 1)} ms`, holds: search.latencyP99Ms < 20 },
        {
          name: "member update, 100,000 members >= 30% of health (requests/s, measured one after the other)",
          measured: `${fmt((hugeUpdate.requestsPerSecond / hugeHealth.requestsPerSecond) * 100, 1)}%`,
          holds: hugeUpdate.requestsPerSecond / hugeHealth.requestsPerSecond >= 0.3
        },
        {
          name: "member search, 100,000 members p99 < 20 ms",
          measured: `${fmt(hugeSearch.latencyP99Ms, 1)} ms`,
          holds: hugeSearch.latencyP99Ms < 20
        }
      ]
    }
  } finally {
    await db.drop().catch((error: unknown) => process.stderr.write(`bench: could not drop ${db.url}: ${String(error)}\n`))
  }
}

/** Prints the table and the targets, writes the JSON; 0 when every request succeeded. */
const finish = (run: {
  readonly mode: string
  readonly load: Load
  readonly runs: Array<Figures>
  readonly ratios: Ratios | null
  readonly targets: Array<Target>
  readonly resultsPath: string | undefined
}): number => {
  const { load, mode, ratios, resultsPath, runs, targets } = run
  const allClean = runs.every(clean)

  const report = [
    "",
    `Benchmark (${mode}): ${load.rounds} round(s), ${load.connections} connections, ${load.seconds}s per target after ${load.warmupSeconds}s warm-up, loopback, ${cpus().length} CPU(s), Node ${process.version}; the load generator shares the machine.`,
    "",
    table(runs),
    ""
  ]
  if (targets.length > 0) {
    report.push(
      "| target | measured | holds |",
      "|---|---:|:---:|",
      ...targets.map((t) => `| ${t.name} | ${t.measured} | ${t.holds ? "yes" : "**no**"} |`),
      ""
    )
  }
  if (!allClean) {
    report.push("**Some requests failed (non-2xx, errors or timeouts): these figures do not count.**", "")
  }
  process.stdout.write(report.join("\n") + "\n")

  if (resultsPath !== undefined) {
    const results = {
      date: new Date().toISOString(),
      commit: gitCommit(),
      mode,
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? null,
      rounds: load.rounds,
      connections: load.connections,
      seconds: load.seconds,
      warmupSeconds: load.warmupSeconds,
      runs,
      ratios,
      targets,
      allTargetsHold: targets.length > 0 && allClean && targets.every((t) => t.holds),
      allRequestsSucceeded: allClean
    }
    writeFileSync(resultsPath, JSON.stringify(results, null, 2) + "\n")
    const shown = relative(process.cwd(), resultsPath)
    process.stdout.write(`bench: figures written to ${shown.startsWith("..") ? resultsPath : shown}\n`)
  }
  return allClean ? 0 : 1
}

// --- main ----------------------------------------------------------------------------

const main = async (): Promise<number> => {
  const load: Load = {
    rounds: intEnv("BENCH_ROUNDS", 3, 1),
    seconds: intEnv("BENCH_SECONDS", 10, 1),
    warmupSeconds: intEnv("BENCH_WARMUP_SECONDS", 3, 0),
    connections: intEnv("BENCH_CONNECTIONS", 50, 1)
  }
  const bootSeconds = intEnv("BENCH_BOOT_SECONDS", 90, 1)
  const bareOnly = flagEnv("BENCH_BARE_ONLY")
  const writesOnly = flagEnv("BENCH_WRITES_ONLY")
  const external = process.env["BENCH_SERVER_URL"]
  const resultsPath = process.env["BENCH_RESULTS"] ?? (bareOnly || writesOnly ? undefined : join(root, "ops", "bench", "results.json"))
  if (!existsSync(NODE)) throw new BenchError(`${NODE} is missing: run "npm ci" (Node 24 comes from the "node" dependency)`)

  // Whatever happens, the run ends: two boots + every measured target + margin.
  // The gateway bench boots a server of its own and runs about 70 s; the READY bench boots
  // one too and runs about 30 s, the user actors' memory about 20 s; the observability
  // targets boot two servers and measure six targets a round, the cluster round four servers and eight.
  const budgetSeconds = 11 * bootSeconds + (26 * load.rounds + 4) * (load.seconds + load.warmupSeconds + 5) + 120 + 120 + 120
  setTimeout(() => {
    process.stderr.write(`bench: ERROR: still running after ${budgetSeconds}s; stopping\n`)
    void shutdown(1)
  }, budgetSeconds * 1000).unref()

  const mode = bareOnly ? "bare-only" : external !== undefined ? "external" : writesOnly ? "writes only" : "embedded"
  if (writesOnly) {
    const members = await measureMembers(bootSeconds, load)
    return finish({ mode, load, runs: members.runs, ratios: null, targets: members.targets, resultsPath })
  }
  let base: string | undefined
  let guild: { token: string; guildUrl: string } | undefined
  let healthBody = '{"status":"ok"}'
  let healthType = "application/json"
  if (!bareOnly) {
    let health: Reply
    if (external !== undefined) {
      const url = new URL(external)
      if (!isLoopback(url)) throw new BenchError(`BENCH_SERVER_URL must be on loopback, not ${url.host}`)
      base = url.origin
      health = await waitForHealth(`${base}/_health`, undefined, 10)
    } else {
      const booted = await bootEmbedded(bootSeconds)
      base = booted.base
      health = booted.health
    }
    healthBody = health.text
    healthType = health.contentType ?? healthType
    // Before any measuring: a server that cannot do this fails the run at once.
    guild = await makeGuild(base)
  }

  const bareUrl = await startBare(healthBody, healthType)
  const runs: Array<Figures> = []
  let targets: Array<Target> = []
  const memberTargets: Array<Target> = []
  let ratios: Ratios | null = null
  if (base === undefined || guild === undefined) {
    runs.push(await measure("bare node:http /_health", bareUrl, load))
  } else {
    // Rounds of bare, health and actor back to back: each ratio compares targets measured
    // moments apart, and the median round stands for the run (this machine's speed drifts).
    const rounds: Array<{ bare: Figures; health: Figures; actor: Figures; me: Figures }> = []
    for (let round = 1; round <= load.rounds; round++) {
      const tag = load.rounds > 1 ? ` [round ${round}/${load.rounds}]` : ""
      rounds.push({
        bare: await measure(`bare node:http /_health${tag}`, bareUrl, load),
        health: await measure(`GET /_health${tag}`, `${base}/_health`, load),
        actor: await measure(`GET /guilds/{id} (actor)${tag}`, guild.guildUrl, load, { authorization: guild.token }),
        // The user actor's read (issue 18), by the same user, served from the state it published.
        me: await measure(`GET /users/@me (user actor)${tag}`, `${base}/users/@me`, load, { authorization: guild.token })
      })
    }
    const ratioOf = (r: typeof rounds[number]) => ({
      actorOverHealth: r.actor.requestsPerSecond / r.health.requestsPerSecond,
      healthOverBare: r.health.requestsPerSecond / r.bare.requestsPerSecond,
      meOverActor: r.me.requestsPerSecond / r.actor.requestsPerSecond
    })
    ratios = {
      actorOverHealth: ratioOf(median(rounds, (r) => ratioOf(r).actorOverHealth)).actorOverHealth,
      healthOverBare: ratioOf(median(rounds, (r) => ratioOf(r).healthOverBare)).healthOverBare,
      meOverActor: ratioOf(median(rounds, (r) => ratioOf(r).meOverActor)).meOverActor
    }
    const actorP99 = median(rounds, (r) => r.actor.latencyP99Ms).actor.latencyP99Ms
    runs.push(...rounds.flatMap((r) => [r.bare, r.health, r.actor, r.me]))
    if (mode === "embedded") {
      const mailbox = await bootEmbedded(bootSeconds, { ACTOR_LOCAL_READS: "off" })
      const mailboxGuild = await makeGuild(mailbox.base)
      runs.push(await measure("GET /guilds/{id} through the mailbox (reference)", mailboxGuild.guildUrl, load, {
        authorization: mailboxGuild.token
      }))
      const members = await measureMembers(bootSeconds, load)
      runs.push(...members.runs)
      memberTargets.push(...members.targets)
      // The gateway (issues 6 and 25): 10,000 sessions on a server of its own (ops/bench/gateway.ts),
      // connected 50 at a time for delivery and memory, then on another as a connecting storm.
      const { gatewayResults, measureGateway } = await import("./gateway.ts")
      const sessions = intEnv("BENCH_GATEWAY_SESSIONS", 10_000, 1)
      for (const stormSeconds of [undefined, 30]) {
        const gateway = gatewayResults(
          await measureGateway({ sessions, log: (line) => process.stdout.write(`${line}\n`), ...(stormSeconds === undefined ? {} : { stormSeconds }) })
        )
        runs.push(gateway.run)
        memberTargets.push(...gateway.targets)
      }
      // READY for a user in 100 guilds (issue 18), on a server of its own (ops/bench/gateway-ready.ts).
      const { measureReady, readyResults } = await import("./gateway-ready.ts")
      const ready = readyResults(await measureReady({ log: (line) => process.stdout.write(`${line}\n`) }))
      runs.push(ready.run)
      memberTargets.push(...ready.targets)
      memberTargets.push(await measureUserMemory())
      memberTargets.push(...await measureGuildMemory())
      // What metrics and exported traces cost (issue 22), on two servers of its own (ops/bench/observability.ts).
      const { measureObservability, observabilityResults } = await import("./observability.ts")
      const observed = observabilityResults(await measureObservability({ log: (line) => process.stdout.write(`${line}\n`) }))
      runs.push(...observed.runs)
      memberTargets.push(...observed.targets)
      // Cluster mode beside embedded (issue 25): one API and two shard processes (ops/bench/cluster.ts).
      const { measureCluster, clusterResults } = await import("./cluster.ts")
      memberTargets.push(...clusterResults(await measureCluster({ log: (line) => process.stdout.write(`${line}\n`) })))
    }
    targets = [
      {
        name: "actor >= 60% of health (requests/s, median round)",
        measured: `${fmt(ratios.actorOverHealth * 100, 1)}%`,
        holds: ratios.actorOverHealth >= 0.6
      },
      { name: "actor p99 < 10 ms (median round)", measured: `${fmt(actorP99, 1)} ms`, holds: actorP99 < 10 },
      {
        name: "GET /users/@me >= 80% of GET /guilds/{id} (requests/s, median round)",
        measured: `${fmt(ratios.meOverActor * 100, 1)}%`,
        holds: ratios.meOverActor >= 0.8
      },
      {
        name: "health >= 40% of bare (requests/s, median round)",
        measured: `${fmt(ratios.healthOverBare * 100, 1)}%`,
        holds: ratios.healthOverBare >= 0.4
      },
      // Measured above, on their own Postgres-backed server (embedded mode only).
      ...memberTargets
    ]
  }
  return finish({ mode, load, runs, ratios, targets, resultsPath })
}

main().then(
  (code) => shutdown(code),
  (error: unknown) => {
    const message = error instanceof BenchError ? error.message : error instanceof Error ? error.stack : String(error)
    process.stderr.write(`bench: ERROR: ${message}\n`)
    return shutdown(1)
  }
)
