import { assert, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { field, TestApi } from "../support/Api.ts"
import { clusterEnvironment, clusterJson, clusterRegister, eventually } from "../support/Cluster.ts"
import { sample, scrape } from "../support/Metrics.ts"
import { freePort, keepOutput, startProcess, stopProcess, waitHealthy } from "../support/Processes.ts"

/** Debian's Prometheus (ops/ensure-services.sh makes sure of it). */
const PROMETHEUS = "/usr/bin/prometheus"

class MetricsPort extends Context.Service<MetricsPort, { readonly port: number }>()("test/MetricsPort") {}

const apiWithMetricsPort = Layer.unwrap(Effect.map(freePort, (port) =>
  Layer.merge(TestApi.layerWith({ METRICS_PORT: String(port) }), Layer.succeed(MetricsPort, { port }))))

/**
 * A Prometheus of this test on a free port, with scratch storage, scraping
 * every second what `scrapeConfigs` (YAML) lists; stopped when the scope ends.
 */
const prometheus = (scrapeConfigs: string) =>
  Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "guildhall-prometheus-"))),
      (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
    )
    const config = Path.join(dir, "prometheus.yml")
    Fs.writeFileSync(config, `global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n${scrapeConfigs}`)
    const port = yield* freePort
    const started = yield* Effect.acquireRelease(
      Effect.sync(() =>
        keepOutput(spawn(PROMETHEUS, [
          `--config.file=${config}`,
          `--storage.tsdb.path=${Path.join(dir, "data")}`,
          `--web.listen-address=127.0.0.1:${port}`
        ], { stdio: ["ignore", "pipe", "pipe"] }))
      ),
      ({ child }) => stopProcess(child)
    )
    const base = `http://127.0.0.1:${port}`
    yield* waitHealthy(`${base}/-/ready`, started, 30)
    /** The series an instant query answers, each with its labels. */
    const query = (promql: string) =>
      Effect.promise(async () => {
        const response = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(promql)}`)
        const body = await response.json() as { data?: { result?: ReadonlyArray<{ metric: Record<string, string> }> } }
        return body.data?.result ?? []
      })
    return { query }
  })

layer(apiWithMetricsPort, { timeout: 120_000, excludeTestServices: true })("a real Prometheus", (it) => {
  it.effect("scrapes the admin route with an operator's key and the METRICS_PORT listener", () =>
    Effect.gen(function*() {
      assert.isTrue(Fs.existsSync(PROMETHEUS), `${PROMETHEUS} is missing: run ops/ensure-services.sh`)
      const api = yield* TestApi
      const { port } = yield* MetricsPort
      const user = yield* api.register()
      assert.strictEqual((yield* api.request("GET", `/users/${user.userId}`, { token: user.token })).status, 200)
      const apiPort = new URL(api.baseUrl).port
      const { query } = yield* prometheus([
        "  - job_name: guildhall-api",
        "    authorization:",
        "      type: Admin",
        `      credentials: ${api.adminKey}`,
        "    static_configs:",
        `      - targets: ["127.0.0.1:${apiPort}"]`,
        "  - job_name: guildhall-metrics-port",
        "    static_configs:",
        `      - targets: ["127.0.0.1:${port}"]`,
        ""
      ].join("\n"))

      const found = yield* eventually(
        "Prometheus has our request counter from both jobs",
        query(`guildhall_http_requests_total{route="/users/:user_id",status="200"}`),
        (result) => new Set(result.map((series) => series.metric.job)).size === 2
      )
      expect(found.map((series) => series.metric.job).sort()).toEqual(["guildhall-api", "guildhall-metrics-port"])
      expect(found[0]?.metric).toMatchObject({ method: "GET", route: "/users/:user_id", status: "200" })
      const up = yield* query("up")
      assert.deepStrictEqual(up.map((series) => series.metric.job).sort(), ["guildhall-api", "guildhall-metrics-port"])
    }))
})

layer(Layer.empty, { timeout: 180_000, excludeTestServices: true })("a shard process's metrics", (it) => {
  it.effect("METRICS_PORT of a shard process shows the actors it hosts and their batches", () =>
    Effect.gen(function*() {
      const { env } = yield* clusterEnvironment()
      const shardMetrics = yield* freePort
      const shard = yield* startProcess("shards/main.ts", { ...env, SHARD_PORT: String(yield* freePort), METRICS_PORT: String(shardMetrics) })
      const apiPort = yield* freePort
      const api = yield* startProcess("src/main.ts", { ...env, PORT: String(apiPort) })
      const base = `http://127.0.0.1:${apiPort}`
      yield* waitHealthy(`${base}/_health`, api, 90)

      const owner = yield* clusterRegister(base, "shard-metrics@example.com")
      const created = yield* clusterJson(`${base}/guilds`, { method: "POST", token: owner.token, body: { name: "Measured" } })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const channelId = (created.body as { channels: ReadonlyArray<{ id: string }> }).channels[0]?.id
      const message = yield* clusterJson(`${base}/channels/${channelId}/messages`, {
        method: "POST",
        token: owner.token,
        body: { content: "through the shard" }
      })
      assert.strictEqual(message.status, 200, JSON.stringify(message.body))
      field(message.body, "id")

      const shardText = yield* eventually(
        "the shard shows its guild actor",
        Effect.map(scrape(`http://127.0.0.1:${shardMetrics}/metrics`), (s) => s.text),
        (text) => (sample(text, `guildhall_live_actors{kind="guild"}`) ?? 0) >= 1,
        30
      ).pipe(Effect.catchDefect((defect) => Effect.die(new Error(`${String(defect)}\n${shard.output()}`))))
      expect(sample(shardText, `guildhall_write_batch_size_count{actor="guild"}`)).toBeGreaterThanOrEqual(1)
      assert.isDefined(sample(shardText, `guildhall_live_actors{kind="user"}`))
      expect(sample(shardText, "guildhall_redis_connected")).toBe(1)
      assert.isDefined(sample(shardText, `guildhall_postgres_connections{state="idle"}`))
      // No HTTP server in a shard process: no request series.
      expect(shardText).not.toContain("guildhall_http_requests_total")

      // The API process called the shard's actor: remote calls, timed.
      const { text } = yield* scrape(`${base}/metrics`, `Admin ${env.ADMIN_BOOTSTRAP_KEY}`)
      expect(sample(text, `guildhall_actor_calls_total{kind="write",place="remote",outcome="ok"}`)).toBeGreaterThanOrEqual(1)
      expect(sample(text, `guildhall_actor_call_duration_seconds_count{kind="write"}`)).toBeGreaterThanOrEqual(1)
      expect(sample(text, `guildhall_live_actors{kind="guild"}`)).toBe(0)
    }))
})
