// Redis and Postgres of a fault test's own: started from the installed packages on free ports
// in a scratch folder, stopped and started again at will, and removed at the end. The machine's
// shared Postgres and Redis are never touched (other tests and deployments use them).
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { promisify } from "node:util"
import { freePort } from "../../bench/scratch-server.ts"
import { runSql } from "../../bench/member-seed.ts"

const run = promisify(execFile)

const waitFor = async (what: string, ready: () => Promise<boolean>, seconds = 30) => {
  const deadline = Date.now() + seconds * 1000
  while (Date.now() < deadline) {
    if (await ready().catch(() => false)) return
    await sleep(100)
  }
  throw new Error(`${what} did not come up within ${seconds} s`)
}

const redisAnswers = (port: number) => async () => {
  const { stdout } = await run("redis-cli", ["-p", String(port), "ping"], { timeout: 2_000 })
  return stdout.trim() === "PONG"
}

export interface OwnRedis {
  readonly port: number
  readonly url: string
  /** Stops the server: with `keepData` it saves first (as a restart after a clean shutdown), else its data is gone. */
  readonly stop: (options: { readonly keepData: boolean }) => Promise<void>
  /** Starts it again on the same port (and the saved data, if any). */
  readonly start: () => Promise<void>
  /** How many keys it holds. */
  readonly keyCount: () => Promise<number>
  readonly remove: () => Promise<void>
}

/** A redis-server on a free port whose data lives in a scratch folder (an RDB file written only on a saving stop). */
export const ownRedis = async (): Promise<OwnRedis> => {
  const dir = mkdtempSync(join(tmpdir(), "guildhall-faults-redis-"))
  const port = await freePort()
  let child: ChildProcess | undefined
  const start = async () => {
    child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"], {
      stdio: "ignore"
    })
    await waitFor(`redis-server on port ${port}`, redisAnswers(port))
  }
  const stop = async ({ keepData }: { readonly keepData: boolean }) => {
    const running = child
    if (running === undefined || running.exitCode !== null) return
    const exited = new Promise((resolve) => running.once("exit", resolve))
    await run("redis-cli", ["-p", String(port), "shutdown", keepData ? "save" : "nosave"]).catch(() => running.kill("SIGKILL"))
    await exited
    if (!keepData) rmSync(join(dir, "dump.rdb"), { force: true })
    child = undefined
  }
  await start()
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    keyCount: async () => Number((await run("redis-cli", ["-p", String(port), "dbsize"])).stdout.trim()),
    remove: async () => {
      await stop({ keepData: false })
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** The installed Postgres server programs (Debian keeps them per major version). */
const postgresBin = (): string => {
  const base = "/usr/lib/postgresql"
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : []
  const found = versions.map((v) => join(base, v, "bin")).find((bin) => existsSync(join(bin, "pg_ctl")))
  if (found === undefined) throw new Error("no Postgres server programs under /usr/lib/postgresql (apt-get install postgresql)")
  return found
}

export interface OwnPostgres {
  readonly port: number
  /** The `postgres` database's URL (to create scratch databases from, and to run admin statements). */
  readonly adminUrl: string
  /** A new database on this server; its URL. */
  readonly createDatabase: (name: string) => Promise<string>
  /** `pg_ctl stop -m fast`: every connection is closed, in-flight transactions roll back. */
  readonly stop: () => Promise<void>
  readonly start: () => Promise<void>
  /** `pg_terminate_backend` on every client connection but the caller's: a connection storm. */
  readonly terminateConnections: () => Promise<number>
  readonly remove: () => Promise<void>
}

/**
 * A Postgres cluster of its own (initdb, pg_ctl) on a free port. Postgres refuses to run as
 * root, so when the test runs as root the cluster belongs to the `postgres` user.
 */
export const ownPostgres = async (): Promise<OwnPostgres> => {
  const bin = postgresBin()
  const dir = mkdtempSync(join(tmpdir(), "guildhall-faults-pg-"))
  const data = join(dir, "data")
  const port = await freePort()
  const asRoot = process.getuid?.() === 0
  const owner = asRoot ? (await run("id", ["-u", "postgres"])).stdout.trim() : undefined
  if (owner !== undefined) {
    chmodSync(dir, 0o755)
    chownSync(dir, Number(owner), Number(owner))
  }
  const as = (program: string, args: ReadonlyArray<string>) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(bin, program), ...args]) : run(join(bin, program), [...args])
  await as("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`
  const start = async () => {
    await as("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"])
    await waitFor(`Postgres on port ${port}`, async () => {
      await runSql(adminUrl, ["SELECT 1"])
      return true
    })
  }
  const stop = async () => {
    await as("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]).catch(() => undefined)
  }
  await start()
  return {
    port,
    adminUrl,
    createDatabase: async (name) => {
      await runSql(adminUrl, [`CREATE DATABASE ${name}`])
      return `postgres://postgres@127.0.0.1:${port}/${name}`
    },
    stop,
    start,
    terminateConnections: async () => {
      const { stdout } = await run("psql", [
        "-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", "postgres", "-Atc",
        "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity " +
        "WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'"
      ])
      return Number(stdout.trim())
    },
    remove: async () => {
      await stop()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
