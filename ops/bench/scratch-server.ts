// The embedded server as the gateway benches drive it: src/main.ts in a child process on a
// scratch Postgres database and a free port, rate limits off, called over its REST API.
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes, randomUUID } from "node:crypto"
import { createServer } from "node:net"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { scratchDatabase } from "./member-seed.ts"
import { serverNodeFlags } from "./server-flags.ts"

/** This checkout. */
export const root = join(import.meta.dirname, "..", "..")
/** The node of package.json's "node" dependency, the one the server runs on. */
export const NODE = join(root, "node_modules", ".bin", "node")
/** GUILDS | GUILD_MESSAGES: what a chat client listens to. */
export const INTENTS = 1 | (1 << 9)
const BOOT_SECONDS = 90

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() =>
        address !== null && typeof address === "object" ? resolve(address.port) : reject(new Error("no free port"))
      )
    })
  })

export interface Json {
  readonly [key: string]: unknown
}
export const isJson = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v)

/** A running server; `stop` ends it and drops its database. */
export interface ScratchServer {
  readonly pid: number
  /** `http://127.0.0.1:<port>`. */
  readonly base: string
  /** Its scratch database, for a bench that seeds rows straight into it. */
  readonly databaseUrl: string
  readonly adminKey: string
  /** A REST call; the reply's JSON object, or an error naming the call and the reply. */
  readonly call: (method: string, path: string, token?: string, body?: unknown) => Promise<Json>
  /** A new account; its token. */
  readonly register: () => Promise<string>
  /** A guild of `owner`'s: its first channel's id and an invite code without a use limit. */
  readonly guildWithInvite: (owner: string, name: string) => Promise<{ channelId: string; code: string }>
  /** The gateway's URL as a client of `token` is told it, with the query a JSON client adds. */
  readonly gatewayUrl: (token: string) => Promise<string>
  readonly stop: () => Promise<void>
}

/** Boots the server (with `nodeArgs` before src/main.ts, `settings` added to its environment) and waits until /_health answers. */
export const startScratchServer = async (
  nodeArgs: ReadonlyArray<string>,
  settings: Readonly<Record<string, string>> = {}
): Promise<ScratchServer> => {
  const database = await scratchDatabase()
  const port = await freePort()
  const adminKey = randomBytes(24).toString("base64url")
  const base = `http://127.0.0.1:${port}`
  const server: ChildProcess = spawn(NODE, [...serverNodeFlags(root), ...nodeArgs, "src/main.ts"], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: database.url,
      ADMIN_BOOTSTRAP_KEY: adminKey,
      RATE_LIMITS: "off",
      LOG_REQUESTS: "false",
      ...settings
    },
    stdio: ["ignore", "ignore", "inherit"]
  })
  const stop = async () => {
    server.kill("SIGTERM")
    await new Promise((resolve) => server.exitCode !== null ? resolve(undefined) : server.once("exit", resolve))
    await database.drop().catch(() => undefined)
  }
  const call = async (method: string, path: string, token?: string, body?: unknown): Promise<Json> => {
    const headers: Record<string, string> = { "content-type": "application/json" }
    if (token !== undefined) headers.authorization = token
    const reply = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    const parsed: unknown = await reply.json().catch(() => ({}))
    if (!reply.ok || !isJson(parsed)) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(parsed)}`)
    return parsed
  }
  try {
    for (let i = 0; ; i++) {
      if (await fetch(`${base}/_health`).then((r) => r.ok, () => false)) break
      if (server.exitCode !== null) throw new Error(`the server stopped (exit code ${server.exitCode})`)
      if (i > BOOT_SECONDS * 5) throw new Error("the server did not start")
      await sleep(200)
    }
  } catch (error) {
    await stop()
    throw error
  }
  return {
    pid: server.pid ?? 0,
    base,
    databaseUrl: database.url,
    adminKey,
    call,
    register: async () => {
      const reply = await call("POST", "/auth/register", undefined, {
        email: `b${randomUUID().slice(0, 12)}@example.com`,
        password: "correct horse battery",
        date_of_birth: "2000-01-01",
        consent: true
      })
      return String(reply.token)
    },
    guildWithInvite: async (owner, name) => {
      const guild = await call("POST", "/guilds", owner, { name })
      const channels = Array.isArray(guild.channels) ? guild.channels.filter(isJson) : []
      const channelId = String(channels[0]?.id)
      const invite = await call("POST", `/channels/${channelId}/invites`, owner, { max_uses: 0 })
      return { channelId, code: String(invite.code) }
    },
    gatewayUrl: async (token) => `${String((await call("GET", "/gateway", token)).url)}?v=1&encoding=json`,
    stop
  }
}
