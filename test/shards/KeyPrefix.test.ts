import { assert, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Redis } from "ioredis"
import { spawn } from "node:child_process"
import { once } from "node:events"
import { randomUUID } from "node:crypto"
import { field } from "../support/Api.ts"
import { clusterEnvironment, clusterJson, clusterRegister, eventually, shardAndTwoApis } from "../support/Cluster.ts"
import { freePort } from "../support/Processes.ts"
import { identifyAt, nextOfType } from "../gateway/Client.ts"

/**
 * A Redis of the test's own: everything in it was written by the deployment under
 * test, so a key or a channel outside the prefix is a leak, whatever other tests
 * and deployments do on the shared Redis meanwhile.
 */
const privateRedis = Effect.gen(function*() {
  const port = yield* freePort
  yield* Effect.acquireRelease(
    Effect.sync(() =>
      spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
        stdio: "ignore"
      })
    ),
    (child) =>
      Effect.promise(async () => {
        if (child.exitCode !== null || child.signalCode !== null) return
        const exited = once(child, "exit")
        child.kill("SIGTERM")
        await exited
      })
  )
  const url = `redis://127.0.0.1:${port}`
  const client = yield* Effect.acquireRelease(
    Effect.sync(() => {
      const c = new Redis(url, { retryStrategy: () => 50, maxRetriesPerRequest: null })
      // Refused until the server listens; the client reconnects and the queued PING waits for it.
      c.on("error", () => undefined)
      return c
    }),
    (c) => Effect.sync(() => c.disconnect())
  )
  yield* Effect.promise(() => client.ping()).pipe(
    Effect.timeoutOrElse({ duration: "30 seconds", orElse: () => Effect.die(new Error(`redis-server on ${port} did not start`)) })
  )
  return { url, client }
})

/**
 * Every key written (keyspace events name it, even one that lives a moment) and
 * every channel published to, from now on.
 */
const watchEverything = (admin: Redis) =>
  Effect.gen(function*() {
    yield* Effect.promise(() => admin.config("SET", "notify-keyspace-events", "EA"))
    const watcher = yield* Effect.acquireRelease(Effect.sync(() => admin.duplicate()), (c) => Effect.sync(() => c.disconnect()))
    const keys = new Set<string>()
    const channels = new Set<string>()
    watcher.on("pmessage", (_pattern: string, channel: string, message: string) => {
      if (channel.startsWith("__keyevent@")) keys.add(message)
      else channels.add(channel)
    })
    yield* Effect.promise(() => watcher.psubscribe("*"))
    return { keys, channels }
  })

it.live("a deployment keeps every Redis key and channel it uses under its REDIS_KEY_PREFIX", () =>
  Effect.gen(function*() {
    const redis = yield* privateRedis
    const seen = yield* watchEverything(redis.client)
    const prefix = `gh-scan-${randomUUID()}:`
    const outside = (names: Iterable<string>) => [...names].filter((name) => !name.startsWith(prefix))

    // Rate limits on (their counters are keys), two API processes (presence and voice routes, the event feed).
    const { env } = yield* clusterEnvironment({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix, RATE_LIMITS: "on" })
    const { first: a, second: b } = yield* shardAndTwoApis(env)
    const adminToken = `Admin ${env.ADMIN_BOOTSTRAP_KEY}`

    const owner = yield* clusterRegister(a.base, "owner@example.com")
    const member = yield* clusterRegister(b.base, "member@example.com")
    const guildId = field((yield* clusterJson(`${a.base}/guilds`, { method: "POST", token: owner.token, body: { name: "Scanned" } })).body, "id")
    const guild = yield* clusterJson(`${b.base}/guilds/${guildId}`, { token: owner.token })
    const channelId = field((guild.body as { channels: ReadonlyArray<unknown> }).channels[0], "id")
    const invite = yield* clusterJson(`${a.base}/channels/${channelId}/invites`, { method: "POST", token: owner.token, body: {} })
    const joined = yield* clusterJson(`${b.base}/invites/${field(invite.body, "code")}`, { method: "POST", token: member.token })
    assert.strictEqual(joined.status, 200, JSON.stringify(joined.body))

    // A session on each API process; a message and a reaction reach the other one.
    const ownerSide = yield* identifyAt(a.ws, owner.token)
    const memberSide = yield* identifyAt(b.ws, member.token)
    yield* nextOfType(ownerSide.client, "GUILD_CREATE")
    yield* nextOfType(memberSide.client, "GUILD_CREATE")
    const sent = yield* clusterJson(`${b.base}/channels/${channelId}/messages`, { method: "POST", token: member.token, body: { content: "hello" } })
    assert.strictEqual(sent.status, 200, JSON.stringify(sent.body))
    yield* nextOfType(ownerSide.client, "MESSAGE_CREATE")
    const reacted = yield* clusterJson(`${a.base}/channels/${channelId}/messages/${field(sent.body, "id")}/reactions/%F0%9F%91%8D/@me`, {
      method: "PUT",
      token: owner.token
    })
    assert.strictEqual(reacted.status, 204, JSON.stringify(reacted.body))
    yield* nextOfType(memberSide.client, "MESSAGE_REACTION_ADD")
    // A voice state (the voice routes) and a DM call (a DM channel's actor).
    const lounge = yield* clusterJson(`${a.base}/guilds/${guildId}/channels`, { method: "POST", token: owner.token, body: { type: 2, name: "Lounge" } })
    assert.strictEqual(lounge.status, 200, JSON.stringify(lounge.body))
    ownerSide.client.send({ op: 4, d: { guild_id: guildId, channel_id: field(lounge.body, "id"), self_mute: false, self_deaf: false } })
    yield* nextOfType(memberSide.client, "VOICE_STATE_UPDATE")
    const dm = yield* clusterJson(`${a.base}/users/@me/channels`, { method: "POST", token: owner.token, body: { recipient_id: member.userId } })
    const rung = yield* clusterJson(`${a.base}/channels/${field(dm.body, "id")}/call/ring`, { method: "POST", token: owner.token, body: {} })
    assert.strictEqual(rung.status, 204, JSON.stringify(rung.body))

    // Stats and operator commands (the per-guild audience is published by each API process).
    const audience = Effect.map(
      clusterJson(`${b.base}/admin/gateway/memory-stats`, { method: "POST", token: adminToken, body: {} }),
      (reply) => (reply.body as { guilds: ReadonlyArray<{ guild_id: string; session_count: number; presence_count: number }> })
        .guilds.find((g) => g.guild_id === guildId)
    )
    // A session counts from its registration, its presence from just after READY: a process that
    // publishes between the two shows the session without it until its next publish.
    yield* eventually(
      "the guild's audience over both API processes",
      audience,
      (g) => g?.session_count === 2 && g.presence_count === 2
    )
    // Each process republishes its figures every two seconds: the shard's call shows from its next publish on.
    const stats = yield* eventually(
      "the call in the cluster's stats",
      clusterJson(`${a.base}/admin/gateway/stats`, { token: adminToken }),
      (reply) => (reply.body as { calls?: number }).calls === 1
    )
    expect(stats.body).toMatchObject({ calls: 1, process_count: 3 })
    const reload = yield* clusterJson(`${a.base}/admin/gateway/reload-all`, { method: "POST", token: adminToken, body: { guild_ids: [] } })
    assert.strictEqual(reload.status, 200, JSON.stringify(reload.body))

    // While everything runs: what is stored now, and who listens where.
    const stored = new Set<string>()
    let cursor = "0"
    do {
      const [next, batch] = yield* Effect.promise(() => redis.client.scan(cursor, "COUNT", 1000))
      for (const key of batch) stored.add(key)
      cursor = next
    } while (cursor !== "0")
    const listened = yield* Effect.promise(() => redis.client.pubsub("CHANNELS"))
    const listenedTo = listened.filter((channel): channel is string => typeof channel === "string")

    // Nothing outside the prefix (the shard leases were under a fixed `guildhall:cluster:`)...
    assert.deepStrictEqual(outside(seen.keys), [])
    assert.deepStrictEqual(outside(stored), [])
    assert.deepStrictEqual(outside(listenedTo), [])
    assert.deepStrictEqual(outside(seen.channels), [])
    // ...and the deployment did use Redis for all of it.
    for (const part of ["cluster:", "ratelimit:", "stats", "presence:", "voice:", "snowflake-node:"]) {
      assert.isTrue([...seen.keys].some((key) => key.startsWith(prefix + part)), `no ${part} key written`)
    }
    for (const part of ["gateway:guild:", "gateway:user:", "control"]) {
      assert.isTrue(listenedTo.some((channel) => channel.startsWith(prefix + part)), `nobody listens on ${part}`)
    }
    assert.isTrue([...seen.channels].some((channel) => channel.startsWith(`${prefix}gateway:guild:${guildId}`)))
  }), { timeout: 240_000 })
