import { assert, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { expectError, field } from "../support/Api.ts"
import { clusterEnvironment, eventually } from "../support/Cluster.ts"
import { queryAt } from "../support/Postgres.ts"
import { freePort, type Started, startProcess, stopProcess, waitHealthy } from "../support/Processes.ts"

interface ProcessStats {
  readonly process_id: string
  readonly role: string
  readonly pid: number
  readonly guilds: number
}

const json = (url: string, init: RequestInit = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(20_000) })
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) as unknown }
  })

const isStats = (value: unknown): value is ProcessStats =>
  typeof value === "object" && value !== null && "role" in value && "pid" in value && "guilds" in value

it.live("shard processes share the guilds, take in a new process, and survive a SIGKILL without losing an acknowledged write", () =>
  Effect.gen(function*() {
    // Rate limits stay on here: the cluster's own limiter (counters in Redis) is part of what runs.
    const { databaseUrl, adminKey, env: common } = yield* clusterEnvironment({ ACTOR_CALL_TIMEOUT_MS: "3000", RATE_LIMITS: "on" })
    const startShard = Effect.gen(function*() {
      const port = yield* freePort
      const started = yield* startProcess("shards/main.ts", { ...common, SHARD_PORT: String(port) })
      return started
    })
    const shards: Array<Started> = [yield* startShard, yield* startShard]
    const apiPort = yield* freePort
    const base = `http://127.0.0.1:${apiPort}`
    const api = yield* startProcess("src/main.ts", { ...common, PORT: String(apiPort) })
    yield* waitHealthy(`${base}/_health`, api, 90)

    const adminHeaders = { authorization: `Admin ${adminKey}` }
    const stats = Effect.map(json(`${base}/admin/gateway/stats`, { headers: adminHeaders }), (reply) => {
      const body = reply.body
      const processes = typeof body === "object" && body !== null && "processes" in body && Array.isArray(body.processes)
        ? body.processes.filter(isStats)
        : []
      return processes.filter((p) => p.role === "shard")
    })

    const registered = yield* json(`${base}/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "cluster@example.com", password: "correct horse battery", date_of_birth: "2000-01-01", consent: true })
    })
    const token = field(registered.body, "token")
    const auth = { authorization: token, "content-type": "application/json" }

    // 40 guilds spread over both shard processes.
    const guildIds = yield* Effect.forEach(Array.from({ length: 40 }, (_, i) => i), (i) =>
      Effect.map(
        json(`${base}/guilds`, { method: "POST", headers: auth, body: JSON.stringify({ name: `guild ${i}` }) }),
        (reply) => field(reply.body, "id")
      ), { concurrency: 8 })
    // An actor whose shard moved starts again on its new owner with the next message: read them all.
    const readAll = Effect.forEach(guildIds, (id) => json(`${base}/guilds/${id}`, { headers: auth }), { concurrency: 8 })
    const liveTotal = (ps: ReadonlyArray<ProcessStats>) => ps.reduce((n, p) => n + p.guilds, 0)
    yield* eventually(
      "both shards hold guilds",
      Effect.andThen(readAll, stats),
      (ps) => ps.length === 2 && ps.every((p) => p.guilds > 0) && liveTotal(ps) === 40
    )

    // A third shard process joins: shards move to it, every guild stays readable.
    shards.push(yield* startShard)
    yield* eventually("the third shard takes guilds", Effect.andThen(readAll, stats), (ps) => ps.length === 3 && ps.every((p) => p.guilds > 0) && liveTotal(ps) === 40, 60)
    const afterJoin = yield* readAll
    assert.deepStrictEqual(afterJoin.map((r) => r.status), guildIds.map(() => 200))

    // SIGKILL one shard process during a stream of writes.
    const acknowledged = new Map<string, string>()
    const failures: Array<{ status: number; body: unknown }> = []
    const attempted = new Map<string, Set<string>>()
    let writing = true
    const writer = Effect.gen(function*() {
      let n = 0
      while (writing) {
        const id = guildIds[n % guildIds.length] ?? ""
        const name = `write ${n++}`
        attempted.set(id, (attempted.get(id) ?? new Set()).add(name))
        const reply = yield* json(`${base}/guilds/${id}`, { method: "PATCH", headers: auth, body: JSON.stringify({ name }) })
        if (reply.status === 200) acknowledged.set(id, name)
        else failures.push(reply)
      }
    })
    const writers = yield* Effect.forkChild(Effect.all([writer, writer, writer, writer], { concurrency: "unbounded" }))
    yield* Effect.sleep("1500 millis")

    const victim = shards[1]
    const held = (yield* stats).find((p) => p.pid === victim?.child.pid)
    assert.isDefined(held)
    const killedAt = Date.now()
    victim?.child.kill("SIGKILL")
    yield* eventually("every guild answers after the kill", readAll, (replies) => replies.every((r) => r.status === 200), 30)
    const recovery = (Date.now() - killedAt) / 1000
    console.log(`cluster: guilds of the killed shard process answered again after ${recovery.toFixed(1)} s`)
    assert.isBelow(recovery, 10)
    yield* Effect.sleep("1 second")
    writing = false
    yield* Fiber.join(writers)

    // Every acknowledged write is intact: the name is the last acknowledged one, or a
    // later attempt whose answer was lost (503, outcome unknown).
    const finalReads = yield* readAll
    for (const [i, id] of guildIds.entries()) {
      const last = acknowledged.get(id)
      if (last === undefined) continue
      const name = field(finalReads[i]?.body, "name")
      const lastNumber = Number(last.split(" ")[1])
      const nameNumber = Number(name.split(" ")[1])
      assert.isTrue(name === last || (nameNumber > lastNumber && (attempted.get(id)?.has(name) ?? false)), `${id}: ${name} vs ${last}`)
    }
    assert.isAbove(acknowledged.size, 0)
    // A write caught by the failover answers 503 with the error object, never a 500.
    for (const failure of failures) {
      expectError(failure, 503, "SERVICE_UNAVAILABLE")
    }

    // Reload picks up a change written straight into Postgres.
    const target = guildIds[0] ?? ""
    yield* queryAt(databaseUrl, "UPDATE guilds SET name = 'from the database' WHERE id = $1", [target])
    const reload = yield* json(`${base}/admin/guilds/reload`, { method: "POST", headers: { ...adminHeaders, "content-type": "application/json" }, body: JSON.stringify({ guild_id: target }) })
    assert.strictEqual(reload.status, 200)
    const reloaded = yield* json(`${base}/guilds/${target}`, { headers: auth })
    expect(reloaded.body).toMatchObject({ name: "from the database" })

    // A dead process's figures expire from the sum; the survivors hold every guild.
    yield* eventually(
      "the killed process drops out of the stats",
      Effect.andThen(readAll, stats),
      (ps) => ps.length === 2 && !ps.some((p) => p.pid === victim?.child.pid) && liveTotal(ps) === 40
    )

    // Shutdown drops the actor (stats go down); the next request starts it again.
    const before = 40
    const shutdown = yield* json(`${base}/admin/guilds/shutdown`, { method: "POST", headers: { ...adminHeaders, "content-type": "application/json" }, body: JSON.stringify({ guild_id: target }) })
    assert.strictEqual(shutdown.status, 200)
    yield* eventually("stats drop the shut down actor", stats, (ps) => liveTotal(ps) === before - 1)
    const restarted = yield* json(`${base}/guilds/${target}`, { headers: auth })
    expect(restarted.body).toMatchObject({ name: "from the database" })
    yield* eventually("stats count it again", stats, (ps) => liveTotal(ps) === before)

    yield* stopProcess(api.child)
    yield* Effect.forEach(shards, (s) => stopProcess(s.child), { discard: true })
  }), { timeout: 300_000 })
