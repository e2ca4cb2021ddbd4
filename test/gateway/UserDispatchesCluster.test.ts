import { assert, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { field } from "../support/Api.ts"
import { clusterEnvironment, clusterJson, clusterRegister, shardAndTwoApis } from "../support/Cluster.ts"
import { dataOf, identifyAt, nextOfType } from "./Client.ts"

it.live("in cluster mode, user dispatches of a change made through API process B reach sessions on API process A", () =>
  Effect.gen(function*() {
    const { env } = yield* clusterEnvironment()
    const { first: a, second: b } = yield* shardAndTwoApis(env)

    const alice = yield* clusterRegister(b.base, "alice@example.com")
    const bob = yield* clusterRegister(b.base, "bob@example.com")
    const onA = `${a.base.replace("http://", "ws://")}/gateway/socket?v=1&encoding=json`
    const aliceSide = (yield* identifyAt(onA, alice.token)).client
    const bobSide = (yield* identifyAt(onA, bob.token)).client

    const patched = yield* clusterJson(`${b.base}/users/@me`, { method: "PATCH", token: alice.token, body: { bio: "from B" } })
    assert.strictEqual(patched.status, 200, JSON.stringify(patched.body))
    expect(dataOf(yield* nextOfType(aliceSide, "USER_UPDATE"))).toMatchObject({ id: alice.userId, bio: "from B" })

    const asked = yield* clusterJson(`${b.base}/users/@me/relationships/${bob.userId}`, { method: "POST", token: alice.token, body: {} })
    assert.strictEqual(asked.status, 200, JSON.stringify(asked.body))
    expect(dataOf(yield* nextOfType(aliceSide, "RELATIONSHIP_ADD"))).toMatchObject({ id: bob.userId, type: 4 })
    expect(dataOf(yield* nextOfType(bobSide, "RELATIONSHIP_ADD"))).toMatchObject({ id: alice.userId, type: 3 })

    const login = yield* clusterJson(`${b.base}/auth/login`, {
      method: "POST",
      body: { email: "alice@example.com", password: "correct horse battery" }
    })
    assert.strictEqual(login.status, 200, JSON.stringify(login.body))
    field(login.body, "token")
    expect(dataOf(yield* nextOfType(aliceSide, "AUTH_SESSION_CHANGE"))).toMatchObject({ auth_session_id_hash: expect.any(String) })
  }), { timeout: 180_000 })
