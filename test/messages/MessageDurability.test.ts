import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { expectError, field } from "../support/Api.ts"
import { clusterEnvironment } from "../support/Cluster.ts"
import { queryAt } from "../support/Postgres.ts"
import { freePort, type Started, startProcess, waitHealthy } from "../support/Processes.ts"

interface Reply {
  readonly status: number
  readonly body: unknown
}

interface Message {
  readonly id: string
  readonly content: string
  readonly nonce?: string
}

const request = (url: string, init: { method?: string; token?: string; body?: unknown } = {}) =>
  Effect.promise(async (): Promise<Reply> => {
    const headers: Record<string, string> = {}
    if (init.token !== undefined) headers.authorization = init.token
    if (init.body !== undefined) headers["content-type"] = "application/json"
    const response = await fetch(url, {
      method: init.method ?? "GET",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(20_000)
    }).catch((error: unknown) => error)
    // A connection reset while a shard dies is an answer lost, like a 503.
    if (!(response instanceof Response)) return { status: 0, body: String(response) }
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
  })

const isMessage = (value: unknown): value is Message =>
  typeof value === "object" && value !== null && "id" in value && typeof value.id === "string" &&
  "content" in value && typeof value.content === "string"

const messagesOf = (reply: Reply): ReadonlyArray<Message> => {
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  assert.isTrue(Array.isArray(reply.body))
  return Array.isArray(reply.body) ? reply.body.filter(isMessage) : []
}

/**
 * Two shard processes and two API processes on one scratch database and a
 * Redis key prefix of their own; the tests below kill a shard process.
 */
class TestCluster extends Context.Service<TestCluster, {
  readonly databaseUrl: string
  readonly adminKey: string
  readonly apis: ReadonlyArray<string>
  readonly shards: ReadonlyArray<Started>
}>()("test/TestCluster") {
  static readonly layer = Layer.effect(
    TestCluster,
    Effect.gen(function*() {
      const { databaseUrl, adminKey, env: common } = yield* clusterEnvironment({ ACTOR_CALL_TIMEOUT_MS: "3000" })
      const shards = yield* Effect.forEach([0, 1], () =>
        Effect.flatMap(freePort, (port) => startProcess("shards/main.ts", { ...common, SHARD_PORT: String(port) })))
      const apis = yield* Effect.forEach([0, 1], () =>
        Effect.gen(function*() {
          const port = yield* freePort
          const base = `http://127.0.0.1:${port}`
          const api = yield* startProcess("src/main.ts", { ...common, PORT: String(port) })
          yield* waitHealthy(`${base}/_health`, api, 90)
          return base
        }), { concurrency: "unbounded" })
      return { databaseUrl, adminKey, apis, shards }
    })
  )
}

/** A fresh owner (registered through `base`), their guild, and its first text channel. */
const guildWithChannel = (base: string) =>
  Effect.gen(function*() {
    const registered = yield* request(`${base}/auth/register`, {
      method: "POST",
      body: { email: `d${randomUUID().slice(0, 8)}@example.com`, password: "correct horse battery", date_of_birth: "2000-01-01", consent: true }
    })
    const token = field(registered.body, "token")
    const guild = yield* request(`${base}/guilds`, { method: "POST", token, body: { name: "Durability" } })
    assert.strictEqual(guild.status, 200, JSON.stringify(guild.body))
    const channels = typeof guild.body === "object" && guild.body !== null && "channels" in guild.body && Array.isArray(guild.body.channels)
      ? guild.body.channels.filter(isMessageChannel)
      : []
    return { token, guildId: field(guild.body, "id"), channelId: channels[0]?.id ?? "" }
  })

const isMessageChannel = (value: unknown): value is { id: string } =>
  typeof value === "object" && value !== null && "id" in value && typeof value.id === "string" && "type" in value && value.type === 0

/** Every message of the channel through the list endpoint, newest first, paged by `before`. */
const readChannel = (base: string, token: string, channelId: string) =>
  Effect.gen(function*() {
    const all: Array<Message> = []
    let before: string | undefined
    for (;;) {
      const query = before === undefined ? "limit=100" : `limit=100&before=${before}`
      const page = messagesOf(yield* request(`${base}/channels/${channelId}/messages?${query}`, { token }))
      all.push(...page)
      if (page.length < 100) return all
      before = page[page.length - 1]?.id
    }
  })

const assertNewestFirst = (messages: ReadonlyArray<Message>) => {
  for (let i = 1; i < messages.length; i++) {
    assert.isTrue(BigInt(messages[i - 1]?.id ?? "0") > BigInt(messages[i]?.id ?? "0"), `ids not strictly descending at ${i}`)
  }
}

layer(TestCluster.layer, { timeout: 120_000, excludeTestServices: true })("message durability in cluster mode", (it) => {
  it.effect("Every acknowledged message is in Postgres", () =>
    Effect.gen(function*() {
      const cluster = yield* TestCluster
      const [base = ""] = cluster.apis
      const { token, guildId, channelId } = yield* guildWithChannel(base)
      const adminToken = `Admin ${cluster.adminKey}`

      // The only guild of this cluster so far: the shard process counting one guild hosts its actor.
      const warm = yield* request(`${base}/channels/${channelId}/messages`, { method: "POST", token, body: { content: "warm", nonce: "warm" } })
      assert.strictEqual(warm.status, 200, JSON.stringify(warm.body))
      // Each process reports its figures every few seconds: wait for the host's.
      let hostPid: number | undefined
      const deadline = Date.now() + 40_000
      while (hostPid === undefined && Date.now() < deadline) {
        const stats = yield* request(`${base}/admin/gateway/stats`, { token: adminToken })
        const processes = typeof stats.body === "object" && stats.body !== null && "processes" in stats.body && Array.isArray(stats.body.processes)
          ? stats.body.processes.filter(isShardStats)
          : []
        hostPid = processes.find((p) => p.role === "shard" && p.guilds === 1)?.pid
        if (hostPid !== undefined) break
        // Shards may still be moving to the second process: a read loads the actor wherever it lives now.
        yield* request(`${base}/channels/${channelId}/messages?limit=1`, { token })
        yield* Effect.sleep("250 millis")
      }
      const victim = cluster.shards.find((s) => s.child.pid === hostPid)
      assert.isDefined(victim, `no shard process with pid ${hostPid}`)

      // 200 sends, 20 at a time; a client resends with the same nonce until it gets an answer.
      const acknowledged = new Map<string, string>()
      const failures: Array<Reply> = []
      let killed = false
      const sendOne = (n: number) =>
        Effect.gen(function*() {
          const nonce = `burst-${n}`
          const deadline = Date.now() + 40_000
          while (Date.now() < deadline) {
            const reply = yield* request(`${base}/channels/${channelId}/messages`, {
              method: "POST",
              token,
              body: { content: `burst ${n}`, nonce }
            })
            if (reply.status >= 200 && reply.status < 300) {
              acknowledged.set(nonce, field(reply.body, "id"))
              if (!killed && acknowledged.size >= 60) {
                killed = true
                victim?.child.kill("SIGKILL")
              }
              return
            }
            failures.push(reply)
            yield* Effect.sleep("200 millis")
          }
        })
      yield* Effect.forEach(Array.from({ length: 200 }, (_, n) => n), sendOne, { concurrency: 20, discard: true })
      assert.isTrue(killed)
      assert.isAbove(failures.length, 0, "the kill caught no send in flight")
      // A send caught by the failover answers 503 (outcome unknown) or loses its connection, never a 500.
      for (const failure of failures) {
        if (failure.status !== 0) expectError(failure, 503, "SERVICE_UNAVAILABLE")
      }
      assert.strictEqual(acknowledged.size, 200, "every send was answered once the guild moved")

      // Over HTTP, from the surviving shard process: every acknowledged id, in snowflake order.
      const listed = yield* readChannel(base, token, channelId)
      assertNewestFirst(listed)
      const listedIds = new Set(listed.map((m) => m.id))
      for (const [nonce, id] of acknowledged) assert.isTrue(listedIds.has(id), `${nonce} (${id}) is not listed`)

      // Straight from Postgres: every acknowledged id, one row per nonce.
      const rows = yield* queryAt(
        cluster.databaseUrl,
        "SELECT id::text AS id, nonce FROM messages WHERE channel_id = $1 AND guild_id = $2",
        [channelId, guildId]
      )
      const stored = new Map<string, string>()
      const perNonce = new Map<string, number>()
      for (const row of rows) {
        const nonce = String(row.nonce)
        stored.set(String(row.id), nonce)
        perNonce.set(nonce, (perNonce.get(nonce) ?? 0) + 1)
      }
      for (const [nonce, id] of acknowledged) assert.strictEqual(stored.get(id), nonce, `${nonce} (${id}) is not in Postgres`)
      assert.deepStrictEqual([...perNonce].filter(([, count]) => count > 1), [])
      assert.strictEqual(rows.length, 201)
      assert.strictEqual(listed.length, 201)
    }))

  it.effect("Ordering", () =>
    Effect.gen(function*() {
      const cluster = yield* TestCluster
      const [first = "", second = ""] = cluster.apis
      const { token, channelId } = yield* guildWithChannel(first)

      // Four senders on each API process, each sending its next message once the last is acknowledged.
      const senders = cluster.apis.flatMap((base, process) => [0, 1, 2, 3].map((lane) => ({ base, name: `p${process}s${lane}` })))
      const perSender = 15
      const acknowledged = new Set<string>()
      yield* Effect.forEach(senders, ({ base, name }) =>
        Effect.forEach(Array.from({ length: perSender }, (_, n) => n), (n) =>
          Effect.gen(function*() {
            const reply = yield* request(`${base}/channels/${channelId}/messages`, {
              method: "POST",
              token,
              body: { content: `${name} ${n}` }
            })
            assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
            acknowledged.add(field(reply.body, "id"))
          }), { discard: true }), { concurrency: "unbounded", discard: true })

      for (const base of [first, second]) {
        const listed = yield* readChannel(base, token, channelId)
        assert.strictEqual(listed.length, senders.length * perSender)
        assertNewestFirst(listed)
        assert.deepStrictEqual(new Set(listed.map((m) => m.id)), acknowledged)
        // Oldest first, each sender's sequence numbers go up: the ids follow the order the actor decided.
        const seen = new Map<string, number>()
        for (const message of [...listed].reverse()) {
          const [name = "", n = ""] = message.content.split(" ")
          assert.strictEqual(Number(n), (seen.get(name) ?? -1) + 1, `${name} out of order at ${message.id}`)
          seen.set(name, Number(n))
        }
        assert.strictEqual(seen.size, senders.length)
      }
      const rows = yield* queryAt(cluster.databaseUrl, "SELECT id::text AS id FROM messages WHERE channel_id = $1 ORDER BY id DESC", [channelId])
      assert.deepStrictEqual(rows.map((r) => String(r.id)), (yield* readChannel(second, token, channelId)).map((m) => m.id))
    }))
})

const isShardStats = (value: unknown): value is { role: string; pid: number; guilds: number } =>
  typeof value === "object" && value !== null && "role" in value && "pid" in value && "guilds" in value
