import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { field } from "../support/Api.ts"
import { clusterEnvironment, clusterJson, clusterRegister, shardAndTwoApis } from "../support/Cluster.ts"

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

it.live("a preview uploaded through API process A is served by API process B (kept in Redis)", () =>
  Effect.gen(function*() {
    const { env } = yield* clusterEnvironment()
    const { first: a, second: b } = yield* shardAndTwoApis(env)
    const owner = yield* clusterRegister(a.base, "cluster-streams@example.com")
    const guildId = field((yield* clusterJson(`${a.base}/guilds`, { method: "POST", token: owner.token, body: { name: "S" } })).body, "id")
    const voice = yield* clusterJson(`${a.base}/guilds/${guildId}/channels`, { method: "POST", token: owner.token, body: { name: "V", type: 2 } })
    const voiceId = field(voice.body, "id")
    const path = `/streams/${encodeURIComponent(`${guildId}:${voiceId}:c`)}/preview`
    const uploaded = yield* clusterJson(`${a.base}${path}`, { method: "POST", token: owner.token, body: { channel_id: voiceId, thumbnail: PNG } })
    assert.strictEqual(uploaded.status, 204)
    const served = yield* Effect.promise(() => fetch(`${b.base}${path}`, { headers: { authorization: owner.token } }))
    assert.strictEqual(served.status, 200)
    assert.strictEqual(Buffer.from(yield* Effect.promise(() => served.arrayBuffer())).toString("base64"), PNG)
  }), { timeout: 180_000 })
