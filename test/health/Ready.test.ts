import { assert, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createServer, type Server, type Socket, connect as connectTcp } from "node:net"
import { TestApi } from "../support/Api.ts"
import { clusterEnvironment, eventually } from "../support/Cluster.ts"
import { freePort, startProcess, waitHealthy } from "../support/Processes.ts"

const getJson = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) })
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) as unknown }
  })

/**
 * A TCP relay to the local Redis that can be cut: while cut, it drops its
 * connections and every new one at once, so whoever talks to Redis through it
 * gets no answer, as when Redis is away.
 */
const redisRelay = Effect.gen(function*() {
  let cut = false
  const open = new Set<Socket>()
  const server = yield* Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<Server>((resolve) => {
        const relay = createServer((client) => {
          if (cut) return void client.destroy()
          const upstream = connectTcp(6379, "127.0.0.1")
          for (const socket of [client, upstream]) {
            open.add(socket)
            socket.on("error", () => socket.destroy())
            socket.on("close", () => open.delete(socket))
          }
          client.on("close", () => upstream.destroy())
          upstream.on("close", () => client.destroy())
          client.pipe(upstream).pipe(client)
        })
        relay.listen(0, "127.0.0.1", () => resolve(relay))
      })
    ),
    (relay) =>
      Effect.promise(() => {
        for (const socket of open) socket.destroy()
        return new Promise<void>((resolve) => relay.close(() => resolve()))
      })
  )
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: `redis://127.0.0.1:${port}`,
    cut: Effect.sync(() => {
      cut = true
      for (const socket of open) socket.destroy()
    }),
    restore: Effect.sync(() => {
      cut = false
    })
  }
})

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("readiness, embedded", (it) => {
  it.effect("GET /_ready: the one process is ready once Postgres answers; it uses no Redis", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      for (const path of ["/_ready", "/v1/_ready"]) {
        const reply = yield* api.request("GET", path)
        assert.strictEqual(reply.status, 200, path)
        assert.deepStrictEqual(reply.body, { status: "ready", database: "ok", redis: "not used", cluster: "ok" })
      }
    }))
})

it.live(
  "GET /_ready in a cluster: the API waits for a shard process; a shard answers probes on HEALTH_PORT; Redis away makes the API not ready",
  () =>
    Effect.gen(function*() {
      const relay = yield* redisRelay
      const { env } = yield* clusterEnvironment()
      const apiPort = yield* freePort
      const base = `http://127.0.0.1:${apiPort}`
      // The API process talks to Redis through the relay; the shard process directly.
      const api = yield* startProcess("src/main.ts", { ...env, REDIS_URL: relay.url, PORT: String(apiPort) })
      yield* waitHealthy(`${base}/_health`, api, 90)

      // Alive, but nobody hosts the actors yet.
      const alone = yield* getJson(`${base}/_ready`)
      assert.strictEqual(alone.status, 503, JSON.stringify(alone.body))
      expect(alone.body).toMatchObject({ code: "SERVICE_UNAVAILABLE" })
      assert.match(JSON.stringify(alone.body), /no healthy shard process/)
      assert.strictEqual((yield* getJson(`${base}/_health`)).status, 200)

      const healthPort = yield* freePort
      const shard = yield* startProcess("shards/main.ts", { ...env, SHARD_PORT: String(yield* freePort), HEALTH_PORT: String(healthPort) })
      const probes = `http://127.0.0.1:${healthPort}`
      yield* waitHealthy(`${probes}/_health`, shard, 90)
      assert.deepStrictEqual((yield* getJson(`${probes}/_health`)).body, { status: "ok", database: "ok", redis: "ok" })
      const shardReady = yield* eventually("the shard process is ready", getJson(`${probes}/_ready`), (r) => r.status === 200, 60)
      assert.deepStrictEqual(shardReady.body, { status: "ready", database: "ok", redis: "ok", cluster: "ok" })
      assert.strictEqual((yield* getJson(`${probes}/guilds`)).status, 404)

      const apiReady = yield* eventually("the API process is ready", getJson(`${base}/_ready`), (r) => r.status === 200, 60)
      assert.deepStrictEqual(apiReady.body, { status: "ready", database: "ok", redis: "ok", cluster: "ok" })

      // Redis stops answering the API process: not ready, with the reason; ready again once it is back.
      yield* relay.cut
      const away = yield* eventually("the API process is not ready", getJson(`${base}/_ready`), (r) => r.status === 503, 30)
      expect(away.body).toMatchObject({ code: "SERVICE_UNAVAILABLE" })
      assert.match(JSON.stringify(away.body), /Redis/)
      yield* relay.restore
      yield* eventually("the API process is ready again", getJson(`${base}/_ready`), (r) => r.status === 200, 60)
    }),
  { timeout: 240_000 }
)
