// A cluster for a fault test: shard processes and API processes over one database and one
// Redis (the test's own), each of which the test can kill, pause, resume and start again.
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes, randomUUID } from "node:crypto"
import { setTimeout as sleep } from "node:timers/promises"
import { freePort, NODE, root } from "../../bench/scratch-server.ts"
import { serverNodeFlags } from "../../bench/server-flags.ts"

export interface ClusterProcess {
  readonly name: string
  /** The API's `http://127.0.0.1:<port>`, or the shard's health listener. */
  readonly base: string
  readonly pid: () => number
  /** False once it exited by itself (not by `stop`): a process someone would have to restart by hand. */
  readonly alive: () => boolean
  readonly output: () => string
  /** Starts it (again) and waits until it answers /_health. */
  readonly start: () => Promise<void>
  /** SIGTERM, or the given signal, and waits for the exit. */
  readonly stop: (signal?: NodeJS.Signals) => Promise<void>
  readonly pause: () => void
  readonly resume: () => void
}

export interface ClusterSettings {
  readonly databaseUrl: string
  readonly redisUrl: string
  readonly shards: number
  readonly apis: number
  /** Settings every process gets (ACTOR_CALL_TIMEOUT_MS, SHARD_LOCK_EXPIRATION_SECONDS, ...). */
  readonly env?: Readonly<Record<string, string>>
  /** Per shard: extra settings given its own peer port (a proxy's SHARD_ADVERTISE_PORT). */
  readonly shardEnv?: (index: number, shardPort: number) => Promise<Readonly<Record<string, string>>>
}

export interface FaultCluster {
  readonly shards: ReadonlyArray<ClusterProcess & { readonly shardPort: number }>
  readonly apis: ReadonlyArray<ClusterProcess>
  readonly adminKey: string
  readonly stop: () => Promise<void>
}

const process_ = (name: string, script: string, base: string, env: Readonly<Record<string, string>>): ClusterProcess => {
  let child: ChildProcess | undefined
  let output = ""
  let stopping = false
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    stopping = true
    const running = child
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return
    const exited = new Promise((resolve) => running.once("exit", resolve))
    running.kill("SIGCONT")
    running.kill(signal)
    const force = setTimeout(() => running.kill("SIGKILL"), 15_000)
    await exited
    clearTimeout(force)
  }
  return {
    name,
    base,
    pid: () => child?.pid ?? 0,
    alive: () => stopping || (child !== undefined && child.exitCode === null && child.signalCode === null),
    output: () => output,
    start: async () => {
      stopping = false
      const started = spawn(NODE, [...serverNodeFlags(root), script], {
        cwd: root,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
        stdio: ["ignore", "pipe", "pipe"]
      })
      child = started
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-40_000)
      }
      started.stdout?.on("data", keep)
      started.stderr?.on("data", keep)
      const deadline = Date.now() + 120_000
      while (!await fetch(`${base}/_health`).then((r) => r.ok, () => false)) {
        if (started.exitCode !== null) throw new Error(`${name} exited (${started.exitCode}):\n${output}`)
        if (Date.now() > deadline) throw new Error(`${name} did not answer /_health:\n${output}`)
        await sleep(200)
      }
    },
    stop,
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT")
  }
}

/** Starts the shards, then the APIs, all healthy. */
export const startCluster = async (settings: ClusterSettings): Promise<FaultCluster> => {
  const adminKey = randomBytes(24).toString("base64url")
  const common = {
    DATABASE_URL: settings.databaseUrl,
    REDIS_URL: settings.redisUrl,
    REDIS_KEY_PREFIX: `guildhall-faults-${randomUUID().slice(0, 8)}:`,
    ADMIN_BOOTSTRAP_KEY: adminKey,
    RATE_LIMITS: "off",
    LOG_FORMAT: "json",
    ...settings.env
  }
  const shards: Array<ClusterProcess & { readonly shardPort: number }> = []
  const apis: Array<ClusterProcess> = []
  const stop = async () => {
    await Promise.all([...apis, ...shards].map((p) => p.stop()))
  }
  try {
    for (let i = 0; i < settings.shards; i++) {
      const shardPort = await freePort()
      const healthPort = await freePort()
      const extra = settings.shardEnv === undefined ? {} : await settings.shardEnv(i, shardPort)
      const env = { ...common, SHARD_PORT: String(shardPort), HEALTH_PORT: String(healthPort), ...extra }
      const shard = { ...process_(`shard ${i + 1}`, "shards/main.ts", `http://127.0.0.1:${healthPort}`, env), shardPort }
      shards.push(shard)
      await shard.start()
    }
    for (let i = 0; i < settings.apis; i++) {
      const port = await freePort()
      const api = process_(`api ${i + 1}`, "src/main.ts", `http://127.0.0.1:${port}`, { ...common, PORT: String(port) })
      apis.push(api)
      await api.start()
    }
  } catch (error) {
    await stop()
    throw error
  }
  return { shards, apis, adminKey, stop }
}
