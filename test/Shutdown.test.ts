import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { readdirSync, readFileSync } from "node:fs"
import { connect } from "node:net"
import { resolve } from "node:path"
import { clusterEnvironment, clusterRegister } from "./support/Cluster.ts"
import { identifyAt } from "./gateway/Client.ts"
import { scratchDatabase } from "./support/Postgres.ts"
import { freePort, keepOutput, portFree, ROOT, type Started, startEmbeddedServer, waitHealthy } from "./support/Processes.ts"

/** How long a server may take to stop gracefully: its connections told to reconnect, the HTTP server closed. */
const GRACEFUL_STOP_MS = 10_000

/**
 * A process supervisor stops a service with SIGTERM to the process it started:
 * here `npm start` / `npm run shard`. The server must stop with it, gracefully,
 * and leave nothing behind: no orphaned server, no port held.
 */

/** npm and the scripts it runs use the pinned Node 24 first on the PATH, as `npm test` has it. */
const PATH = `${resolve(ROOT, "node_modules", ".bin")}:${process.env.PATH ?? ""}`

/** State and parent of every process now: from /proc, the same view `ps` has. */
const processTable = () =>
  readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).flatMap((entry) => {
    try {
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ")".
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      return [{ pid: Number(entry), ppid: Number(ppid), state }]
    } catch {
      return [] // ended while we looked
    }
  })

/** Every process started under `root`, however deep. */
const descendants = (root: number): ReadonlyArray<number> => {
  const table = processTable()
  const found: Array<number> = []
  const queue = [root]
  while (queue.length > 0) {
    const parent = queue.shift()
    for (const { pid, ppid } of table) {
      if (ppid === parent) {
        found.push(pid)
        queue.push(pid)
      }
    }
  }
  return found
}

/** A process that still runs (a zombie has ended: it only waits to be reaped). */
const running = (pid: number) => processTable().some((entry) => entry.pid === pid && entry.state !== "Z")

const commandLine = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ")
  } catch {
    return ""
  }
}

/** `npm run <script>` with `env`; whatever is left of its process tree is killed when the scope ends. */
const startNpmScript = (script: "start" | "shard", env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync((): Started & { seen: Set<number> } => {
      const child: ChildProcess = spawn("npm", ["run", script], {
        cwd: ROOT,
        env: { PATH, HOME: process.env.HOME ?? "/tmp", ...env },
        stdio: ["ignore", "pipe", "pipe"]
      })
      return { ...keepOutput(child), seen: new Set<number>() }
    }),
    ({ child, seen }) =>
      Effect.sync(() => {
        for (const pid of [child.pid ?? 0, ...seen]) {
          if (pid > 0 && running(pid)) process.kill(pid, "SIGKILL")
        }
      })
  )

/** Polls until something accepts connections on 127.0.0.1:`port`, or fails with the process's output. */
const waitListening = (port: number, started: Started, seconds = 90) =>
  Effect.promise(async () => {
    const deadline = Date.now() + seconds * 1000
    while (Date.now() < deadline && started.child.exitCode === null) {
      const open = await new Promise<boolean>((done) => {
        const socket = connect(port, "127.0.0.1")
        socket.once("connect", () => {
          socket.destroy()
          done(true)
        })
        socket.once("error", () => done(false))
      })
      if (open) return
      await new Promise((r) => setTimeout(r, 200))
    }
    throw new Error(`nothing listens on ${port}:\n${started.output()}`)
  })

/**
 * SIGTERM to npm, as a supervisor sends it; answers once npm has exited, with the
 * processes that ran under it (recorded first) and the server among them.
 */
/**
 * SIGTERM to npm, as a supervisor sends it; then `serverScript`'s process must have been
 * under npm, nothing npm started may still run, and `port` must be free again.
 */
const stopNpmAndCheck = (started: Started & { seen: Set<number> }, serverScript: string, port: number) =>
  Effect.gen(function*() {
    const { tree, server } = yield* Effect.promise(async () => {
      const npmPid = started.child.pid ?? 0
      const tree = descendants(npmPid)
      for (const pid of tree) started.seen.add(pid)
      const server = tree.find((pid) => commandLine(pid).includes(serverScript))
      const exited = once(started.child, "exit")
      started.child.kill("SIGTERM")
      await exited
      return { tree, server }
    })
    assert.isDefined(server, `no ${serverScript} process under npm: ${tree.map(commandLine).join(" | ")}`)
    assert.deepStrictEqual(tree.filter(running).map(commandLine), [])
    assert.isTrue(yield* portFree(port), `port ${port} is still held`)
  })

describe("a stop by a process supervisor", () => {
  it.live("SIGTERM to a server holding gateway connections: each is told to reconnect, and the server ends by itself", () =>
    Effect.gen(function*() {
      const { port, base, started } = yield* startEmbeddedServer({}, 90)
      const user = yield* clusterRegister(base, "shutdown@example.com")
      const sessions = yield* Effect.forEach([1, 2, 3], () => identifyAt(`ws://127.0.0.1:${port}/gateway/socket?v=1&encoding=json`, user.token))

      const exited = once(started.child, "exit")
      const stopped = Date.now()
      started.child.kill("SIGTERM")
      for (const { client } of sessions) {
        assert.strictEqual((yield* client.next).op, 7)
        assert.strictEqual((yield* client.closed).code, 1012)
      }
      // Not stopProcess: it would SIGKILL a server that hangs, and this must see that it does not.
      const ended = yield* Effect.promise(() => Promise.race([exited, new Promise((r) => setTimeout(() => r("hung"), GRACEFUL_STOP_MS))]))
      assert.notStrictEqual(ended, "hung", `still running ${GRACEFUL_STOP_MS} ms after SIGTERM:\n${started.output()}`)
      assert.isBelow(Date.now() - stopped, GRACEFUL_STOP_MS)
      assert.isNull(started.child.signalCode, `ended by ${started.child.signalCode}`)
    }), { timeout: 120_000 })

  it.live("SIGTERM to `npm start` stops the server with it and frees its port", () =>
    Effect.gen(function*() {
      const port = yield* freePort
      const started = yield* startNpmScript("start", {
        PORT: String(port),
        DATABASE_URL: yield* scratchDatabase,
        RATE_LIMITS: "off"
      })
      yield* waitHealthy(`http://127.0.0.1:${port}/_health`, started, 90)

      yield* stopNpmAndCheck(started, "src/main.ts", port)
    }), { timeout: 120_000 })

  it.live("SIGTERM to `npm run shard` stops the shard process with it and frees its port", () =>
    Effect.gen(function*() {
      const { env } = yield* clusterEnvironment()
      const port = yield* freePort
      const started = yield* startNpmScript("shard", { ...env, SHARD_PORT: String(port) })
      yield* waitListening(port, started)

      yield* stopNpmAndCheck(started, "shards/main.ts", port)
    }), { timeout: 120_000 })

  it.live("SIGTERM to `node src/main.ts` (the container's command) ends it by its own shutdown", () =>
    Effect.gen(function*() {
      const { port, started } = yield* startEmbeddedServer({}, 90)
      const exited = Effect.promise(() => once(started.child, "exit"))
      started.child.kill("SIGTERM")
      // A process without a handler would die of the signal; as PID 1 it would ignore it.
      const [code, signal] = yield* exited
      assert.strictEqual(signal, null)
      assert.strictEqual(code, 130) // interrupted: the runtime's exit code for a stop by signal
      assert.isTrue(yield* portFree(port), `port ${port} is still held`)
    }), { timeout: 120_000 })
})
