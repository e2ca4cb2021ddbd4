import { assert, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { expectError, field, TestApi } from "../support/Api.ts"
import { createGuild } from "../support/Cast.ts"
import { freePort } from "../support/Processes.ts"
import { sample, samplesOf, scrape } from "../support/Metrics.ts"
import { sent } from "../messages/Fixtures.ts"
import { identified, nextOfType } from "../gateway/Client.ts"

const admin = (key: string) => `Admin ${key}`

/** Where the API under test also serves its metrics without credentials (METRICS_PORT). */
class MetricsPort extends Context.Service<MetricsPort, { readonly url: string }>()("test/MetricsPort") {}

/** src/main.ts with `env` and METRICS_PORT on a free port. */
const apiWithMetricsPort = (env: Record<string, string>) =>
  Layer.unwrap(Effect.map(freePort, (port) =>
    Layer.merge(
      TestApi.layerWith({ METRICS_PORT: String(port), ...env }),
      Layer.succeed(MetricsPort, { url: `http://127.0.0.1:${port}/metrics` })
    )))

/** An API key holding `acls`, made with the bootstrap key. */
const keyWith = (acls: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const created = yield* api.request("POST", "/admin/api-keys", { token: admin(api.adminKey), body: { name: "scrape", acls } })
    assert.strictEqual(created.status, 200, JSON.stringify(created.body))
    return admin(field(created.body, "key"))
  })

layer(apiWithMetricsPort({}), { timeout: 120_000, excludeTestServices: true })("metrics on", (it) => {
  it.effect("/metrics needs an operator holding metrics:view, and counts requests by route template and status", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const anonymous = yield* api.request("GET", "/metrics")
      expectError(anonymous, 401, "UNAUTHORIZED")
      const otherAcl = yield* keyWith(["admin:authenticate", "gateway:memory_stats"])
      expectError(yield* api.request("GET", "/metrics", { token: otherAcl }), 403, "MISSING_PERMISSIONS")
      const user = yield* api.register()
      expectError(yield* api.request("GET", "/metrics", { token: user.token }), 403, "MISSING_PERMISSIONS")

      // Two users' profiles (two URLs, one route), through /v1 too, and a URL no route has.
      assert.strictEqual((yield* api.request("GET", `/users/${user.userId}`, { token: user.token })).status, 200)
      assert.strictEqual((yield* api.request("GET", `/v1/users/${user.userId}`, { token: user.token })).status, 200)
      assert.strictEqual((yield* api.request("GET", "/users/1234567890")).status, 401)
      assert.strictEqual((yield* api.request("GET", "/no-such-route/42")).status, 404)
      // A body-carrying request through /v1 and one refused for its body: both under their route.
      const created = yield* api.request("POST", "/v1/guilds", { token: user.token, body: { name: "counted" } })
      expect(created.status).toBeLessThan(300)
      assert.strictEqual((yield* api.request("POST", "/guilds", { token: user.token, body: { name: 42 } })).status, 400)

      const scraper = yield* keyWith(["admin:authenticate", "metrics:view"])
      const scraped = yield* scrape(`${api.baseUrl}/metrics`, scraper)
      assert.strictEqual(scraped.status, 200)
      assert.strictEqual(scraped.contentType, "text/plain; version=0.0.4; charset=utf-8")
      const { text } = scraped
      expect(text).toContain("# TYPE guildhall_http_requests_total counter")
      assert.strictEqual(sample(text, `guildhall_http_requests_total{method="GET",route="/users/:user_id",status="200"}`), 2)
      assert.strictEqual(sample(text, `guildhall_http_requests_total{method="GET",route="/users/:user_id",status="401"}`), 1)
      assert.strictEqual(sample(text, `guildhall_http_requests_total{method="GET",route="(unmatched)",status="404"}`), 1)
      assert.strictEqual(sample(text, `guildhall_http_requests_total{method="GET",route="/metrics",status="401"}`), 1)
      assert.strictEqual(sample(text, `guildhall_http_requests_total{method="POST",route="/guilds",status="${created.status}"}`), 1)
      assert.strictEqual(sample(text, `guildhall_http_requests_total{method="POST",route="/guilds",status="400"}`), 1)
      assert.isUndefined(sample(text, `guildhall_http_requests_total{method="POST",route="(unmatched)",status="400"}`))
      assert.strictEqual(sample(text, `guildhall_http_request_duration_seconds_count{method="GET",route="/users/:user_id"}`), 3)
      assert.isDefined(sample(text, `guildhall_http_request_duration_seconds_bucket{method="GET",route="/users/:user_id",le="+Inf"}`))
      // Raw URLs never become labels.
      expect(text).not.toContain(user.userId)
      expect(text).not.toContain("no-such-route")
      // What every process shows of itself.
      expect(sample(text, "guildhall_process_resident_memory_bytes")).toBeGreaterThan(0)
      expect(sample(text, "guildhall_process_heap_used_bytes")).toBeGreaterThan(0)
      assert.isDefined(sample(text, `guildhall_event_loop_delay_seconds{quantile="p99"}`))
      assert.strictEqual(sample(text, "guildhall_gateway_sessions"), 0)
      assert.isDefined(sample(text, "guildhall_gateway_dispatches_total"))
    }))

  it.effect("actor calls, write batches and live actors are recorded", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId, channelId } = yield* createGuild(owner.token)
      yield* sent(owner.token, channelId, "counted")
      assert.strictEqual((yield* api.request("GET", `/guilds/${guildId}`, { token: owner.token })).status, 200)
      const stranger = yield* api.register()
      assert.strictEqual((yield* api.request("GET", `/guilds/${guildId}`, { token: stranger.token })).status, 403)
      const refused = yield* api.request("POST", `/channels/${channelId}/messages`, { token: owner.token, body: { content: "" } })
      assert.strictEqual(refused.status, 400)
      // A reload makes the actor load its state from Postgres again.
      const reload = yield* api.request("POST", "/admin/guilds/reload", { token: admin(api.adminKey), body: { guild_id: guildId } })
      assert.strictEqual(reload.status, 200)

      const { text } = yield* scrape(`${api.baseUrl}/metrics`, admin(api.adminKey))
      // The embedded process hosts every actor: its calls are local.
      expect(sample(text, `guildhall_actor_calls_total{kind="write",place="local",outcome="ok"}`)).toBeGreaterThanOrEqual(1)
      expect(sample(text, `guildhall_actor_calls_total{kind="read",place="local",outcome="ok"}`)).toBeGreaterThanOrEqual(1)
      expect(sample(text, `guildhall_actor_calls_total{kind="read",place="local",outcome="refused"}`)).toBeGreaterThanOrEqual(1)
      expect(sample(text, `guildhall_write_batch_size_count{actor="guild"}`)).toBeGreaterThanOrEqual(1)
      expect(sample(text, `guildhall_write_batch_commit_seconds_count{actor="guild"}`)).toBeGreaterThanOrEqual(1)
      expect(sample(text, `guildhall_actor_queue_wait_seconds_count{actor="guild"}`)).toBeGreaterThanOrEqual(1)
      expect(sample(text, `guildhall_actor_state_load_seconds_count{actor="guild"}`)).toBeGreaterThanOrEqual(1)
      expect(sample(text, `guildhall_live_actors{kind="guild"}`)).toBeGreaterThanOrEqual(1)
      expect(sample(text, `guildhall_live_actors{kind="user"}`)).toBeGreaterThanOrEqual(0)
      assert.isDefined(sample(text, `guildhall_live_actors{kind="dm"}`))
    }))

  it.effect("gateway sessions, connections and the dispatches sent to them", () =>
    Effect.scoped(Effect.gen(function*() {
      const api = yield* TestApi
      const before = sample((yield* scrape(`${api.baseUrl}/metrics`, admin(api.adminKey))).text, "guildhall_gateway_dispatches_total") ?? 0
      const owner = yield* api.register()
      yield* createGuild(owner.token)
      const { client } = yield* identified(owner.token)
      yield* nextOfType(client, "GUILD_CREATE")
      const { text } = yield* scrape(`${api.baseUrl}/metrics`, admin(api.adminKey))
      assert.strictEqual(sample(text, "guildhall_gateway_sessions"), 1)
      assert.strictEqual(sample(text, "guildhall_gateway_connections"), 1)
      // READY and GUILD_CREATE at least.
      expect(sample(text, "guildhall_gateway_dispatches_total")).toBeGreaterThanOrEqual(before + 2)
      expect(text).toContain("# TYPE guildhall_gateway_dispatches_total counter")
    })))

  it.effect("METRICS_PORT serves the same metrics without credentials", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { url } = yield* MetricsPort
      assert.strictEqual((yield* api.request("GET", "/_health")).status, 200)
      const scraped = yield* scrape(url)
      assert.strictEqual(scraped.status, 200)
      assert.strictEqual(scraped.contentType, "text/plain; version=0.0.4; charset=utf-8")
      expect(sample(scraped.text, `guildhall_http_requests_total{method="GET",route="/_health",status="200"}`)).toBeGreaterThanOrEqual(1)
      // Only /metrics there.
      assert.strictEqual((yield* scrape(url.replace("/metrics", "/_health"))).status, 404)
    }))
})

layer(apiWithMetricsPort({ METRICS: "off" }), { timeout: 120_000, excludeTestServices: true })("metrics off", (it) => {
  it.effect("nothing of ours is recorded, and METRICS_PORT opens no listener", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { channelId } = yield* createGuild(owner.token)
      yield* sent(owner.token, channelId, "not counted")
      const scraped = yield* scrape(`${api.baseUrl}/metrics`, admin(api.adminKey))
      assert.strictEqual(scraped.status, 200)
      assert.deepStrictEqual(scraped.text.split("\n").filter((line) => line.includes("guildhall_")), [])
      assert.deepStrictEqual(samplesOf(scraped.text, "guildhall_http_requests_total"), [])
      const { url } = yield* MetricsPort
      const refused = yield* Effect.promise(() => fetch(url).then(() => "answered", () => "refused"))
      assert.strictEqual(refused, "refused")
    }))
})
