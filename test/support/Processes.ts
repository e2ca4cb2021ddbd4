import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { readFileSync } from "node:fs"
import { createServer } from "node:net"
import { resolve } from "node:path"
import { scratchDatabase } from "./Postgres.ts"

export const ROOT = resolve(import.meta.dirname, "..", "..")
/** The pinned Node 24, never whatever `node` the PATH has. */
export const NODE = resolve(ROOT, "node_modules", ".bin", "node")

const bindable = (port: number) =>
  new Promise<boolean>((done) => {
    const server = createServer()
    server.once("error", () => done(false))
    server.listen(port, "127.0.0.1", () => server.close(() => done(true)))
  })

/** Whether a server could listen on 127.0.0.1:`port` now. */
export const portFree = (port: number) => Effect.promise(() => bindable(port))

/**
 * The ports this worker hands to the processes it starts: below the kernel's ephemeral range,
 * a block of its own per vitest worker. A port from `listen(0)` is an ephemeral one, which
 * the next outgoing connection of any file running beside this one (to Postgres, to Redis)
 * may take as its local port before the child binds it (EADDRINUSE); below the range only
 * listeners take ports, and the other worker's are in another block.
 */
const BLOCK = 2_000
const ephemeralLow = (() => {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0])
  } catch {
    return 32_768
  }
})()
const worker = Math.max(1, Number(process.env["VITEST_POOL_ID"] ?? 1))
const blockStart = ephemeralLow - BLOCK * worker
let nextInBlock = Math.floor(Math.random() * BLOCK)

const anyPort = () =>
  new Promise<number>((done, fail) => {
    const server = createServer()
    server.once("error", fail)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => done(port))
    })
  })

/** A port no one listens on, for a process this test starts. */
export const freePort = Effect.promise(async () => {
  if (blockStart < 1_024) return anyPort()
  for (let tried = 0; tried < BLOCK; tried++) {
    const port = blockStart + (nextInBlock++ % BLOCK)
    if (await bindable(port)) return port
  }
  return anyPort()
})

export interface Started {
  readonly child: ChildProcess
  readonly output: () => string
}

/** `child` with the last 20,000 characters of its stdout and stderr, for a failing test to show. */
export const keepOutput = (child: ChildProcess): Started => {
  let output = ""
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000)
  }
  child.stdout?.on("data", keep)
  child.stderr?.on("data", keep)
  return { child, output: () => output }
}

/** Starts `node <script>` with `env`; killed (SIGKILL after a grace period) when the scope ends. */
export const startProcess = (script: string, env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync((): Started => {
      const child = spawn(NODE, [resolve(ROOT, script)], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
        stdio: ["ignore", "pipe", "pipe"]
      })
      return keepOutput(child)
    }),
    ({ child }) => stopProcess(child)
  )

export const stopProcess = (child: ChildProcess, signal: NodeJS.Signals = "SIGTERM") =>
  Effect.promise(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = once(child, "exit")
    child.kill(signal)
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
    await exited
    clearTimeout(timer)
  })

/** Polls `url` until it answers 200, or fails with the process's output after `seconds`. */
export const waitHealthy = (url: string, started: Started, seconds = 60) =>
  Effect.promise(async () => {
    const deadline = Date.now() + seconds * 1000
    while (Date.now() < deadline) {
      if (started.child.exitCode !== null) break
      const ok = await fetch(url).then((r) => r.ok, () => false)
      if (ok) return
      await new Promise((r) => setTimeout(r, 200))
    }
    throw new Error(`${url} did not become healthy:\n${started.output()}`)
  })

/**
 * `npm start`'s server (src/main.ts) on a free port and a scratch database of the scope, rate
 * limits off, with `settings` added; answered once /_health is, within `seconds`.
 */
export const startEmbeddedServer = (settings: Readonly<Record<string, string>> = {}, seconds?: number) =>
  Effect.gen(function*() {
    const port = yield* freePort
    const base = `http://127.0.0.1:${port}`
    const databaseUrl = yield* scratchDatabase
    const started = yield* startProcess("src/main.ts", {
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      RATE_LIMITS: "off",
      ...settings
    })
    yield* waitHealthy(`${base}/_health`, started, seconds)
    return { port, base, databaseUrl, started }
  })
