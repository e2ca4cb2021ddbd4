import { Effect } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { field } from "./Api.ts"
import { scratchDatabase } from "./Postgres.ts"
import { freePort, startProcess, waitHealthy } from "./Processes.ts"
import { checkResponseShape } from "./ResponseShapes.ts"

/**
 * What every process of one test cluster shares: a scratch database, the local
 * Redis under a key prefix of its own (tests never see each other's shards), and
 * an operator key; `extra` adds or overrides settings.
 */
export const clusterEnvironment = (extra: Readonly<Record<string, string>> = {}) =>
  Effect.map(scratchDatabase, (databaseUrl) => {
    const adminKey = randomBytes(24).toString("base64url")
    const env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: "redis://127.0.0.1:6379",
      REDIS_KEY_PREFIX: `guildhall-test-${randomUUID().slice(0, 8)}:`,
      ADMIN_BOOTSTRAP_KEY: adminKey,
      RATE_LIMITS: "off",
      ...extra
    }
    return { databaseUrl, adminKey, env }
  })

/** Polls `probe` until `done` holds, failing the test after `seconds` with what it last saw. */
export const eventually = <A>(label: string, probe: Effect.Effect<A>, done: (a: A) => boolean, seconds = 30) =>
  Effect.gen(function*() {
    const deadline = Date.now() + seconds * 1000
    let last = yield* probe
    while (!done(last)) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`${label}: gave up, last ${JSON.stringify(last)}`))
      yield* Effect.sleep("250 millis")
      last = yield* probe
    }
    return last
  })

/** A JSON request to one process of a test cluster (cross-process calls may wait for a shard: a long timeout). */
export const clusterJson = (url: string, init: { method?: string; token?: string; body?: unknown } = {}) =>
  Effect.promise(async () => {
    const headers: Record<string, string> = { "content-type": "application/json" }
    if (init.token !== undefined) headers.authorization = init.token
    const response = await fetch(url, {
      method: init.method ?? "GET",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(20_000)
    })
    const text = await response.text()
    const body = text === "" ? undefined : JSON.parse(text) as unknown
    checkResponseShape(init.method ?? "GET", url, response.status, body)
    return { status: response.status, body }
  })

/** Registers `email` through the API process at `base`: its token and user id. */
export const clusterRegister = (base: string, email: string) =>
  Effect.map(
    clusterJson(`${base}/auth/register`, {
      method: "POST",
      body: { email, password: "correct horse battery", date_of_birth: "2000-01-01", consent: true }
    }),
    (reply) => ({ token: field(reply.body, "token"), userId: field(reply.body, "user_id") })
  )

/**
 * A shard process and two API processes over one `env`, both healthy: each
 * API's base URL and process. The processes stop when the scope ends.
 */
export const shardAndTwoApis = (env: Readonly<Record<string, string>>) =>
  Effect.gen(function*() {
    const shard = yield* startProcess("shards/main.ts", { ...env, SHARD_PORT: String(yield* freePort) })
    const startApi = Effect.gen(function*() {
      const port = yield* freePort
      const started = yield* startProcess("src/main.ts", { ...env, PORT: String(port) })
      return { started, base: `http://127.0.0.1:${port}`, ws: `ws://127.0.0.1:${port}/gateway/socket?v=1&encoding=json` }
    })
    const first = yield* startApi
    const second = yield* startApi
    for (const api of [first, second]) yield* waitHealthy(`${api.base}/_health`, api.started, 90)
    return { shard, first, second }
  })

/**
 * src/main.ts alone on a scratch database and a free port, for a test that stops it and
 * starts it again on the same data: its base URL, its database and `start`, which starts
 * the process and waits until it is healthy (it stops when the scope ends, if not before).
 */
export const restartableServer = (extra: Readonly<Record<string, string>> = {}) =>
  Effect.gen(function*() {
    const databaseUrl = yield* scratchDatabase
    const port = yield* freePort
    const base = `http://127.0.0.1:${port}`
    const env = { PORT: String(port), DATABASE_URL: databaseUrl, RATE_LIMITS: "off", ...extra }
    const start = Effect.gen(function*() {
      const started = yield* startProcess("src/main.ts", env)
      yield* waitHealthy(`${base}/_health`, started)
      return started
    })
    return { base, databaseUrl, start }
  })
