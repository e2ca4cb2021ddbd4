import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { field } from "../../support/Api.ts"
import { clusterEnvironment, clusterJson, clusterRegister, shardAndTwoApis } from "../../support/Cluster.ts"

/** Asks `probe` until it answers `status`, failing if that takes a second or more. */
const withinASecond = (label: string, probe: Effect.Effect<number>, status: number) =>
  Effect.gen(function*() {
    const since = Date.now()
    while ((yield* probe) !== status) {
      assert.isBelow(Date.now() - since, 1_000, label)
      yield* Effect.sleep("20 millis")
    }
  })

it.live("a limit changed through API process A is enforced by API process B and by the shard within a second", () =>
  Effect.gen(function*() {
    const { env, adminKey } = yield* clusterEnvironment()
    const { first: a, second: b } = yield* shardAndTwoApis(env)
    const owner = yield* clusterRegister(b.base, "cluster-limits@example.com")
    const guild = yield* clusterJson(`${b.base}/guilds`, { method: "POST", token: owner.token, body: { name: "Limits" } })
    const guildId = field(guild.body, "id")
    const channels = yield* clusterJson(`${b.base}/guilds/${guildId}/channels`, { token: owner.token })
    const channelId = (channels.body as ReadonlyArray<{ id: string; type: number }>).find((c) => c.type === 0)?.id ?? ""
    const send = (content: string) =>
      Effect.map(clusterJson(`${b.base}/channels/${channelId}/messages`, { method: "POST", token: owner.token, body: { content } }), (r) => r.status)
    const role = Effect.map(
      clusterJson(`${b.base}/guilds/${guildId}/roles`, { method: "POST", token: owner.token, body: { name: "r" } }),
      (r) => r.status
    )
    assert.strictEqual(yield* send("x".repeat(100)), 200)
    assert.strictEqual(yield* role, 200)

    const update = (limits: Record<string, number>) =>
      clusterJson(`${a.base}/admin/limit-config/update`, {
        method: "POST",
        token: `Admin ${adminKey}`,
        body: { limit_config: { rules: [{ id: "default", limits }] } }
      })
    // The guild holds @everyone and one role: no room for a third.
    assert.strictEqual((yield* update({ max_message_length: 50, max_guild_roles: 2 })).status, 200)
    yield* withinASecond("B still takes the longer message", send("x".repeat(100)), 400)
    assert.strictEqual(yield* send("x".repeat(50)), 200)
    yield* withinASecond("the shard still makes more roles", role, 400)

    assert.strictEqual((yield* update({})).status, 200)
    yield* withinASecond("B still refuses the longer message", send("x".repeat(100)), 200)
    yield* withinASecond("the shard still refuses the role", role, 200)
  }), { timeout: 180_000 })
