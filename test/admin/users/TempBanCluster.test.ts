import { assert, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { clusterEnvironment, clusterJson, clusterRegister, shardAndTwoApis } from "../../support/Cluster.ts"
import { identifyAt } from "../../gateway/Client.ts"

it.live("in cluster mode, a temp-ban through API process A closes the user's gateway session on B and B refuses the token within a second", () =>
  Effect.gen(function*() {
    const { env, adminKey } = yield* clusterEnvironment()
    const { first: a, second: b } = yield* shardAndTwoApis(env)
    const me = (base: string, token: string) => Effect.map(clusterJson(`${base}/users/@me`, { token }), (reply) => reply.status)

    const user = yield* clusterRegister(b.base, "alice@example.com")
    const bystander = yield* clusterRegister(b.base, "bob@example.com")
    // The session is on B, cached there by use; A never saw the token.
    const { client } = yield* identifyAt(b.ws, user.token)
    const bystanderSide = (yield* identifyAt(b.ws, bystander.token)).client
    assert.strictEqual(yield* me(b.base, user.token), 200)

    const banned = yield* clusterJson(`${a.base}/admin/users/temp-ban`, {
      method: "POST",
      token: `Admin ${adminKey}`,
      body: { user_id: user.userId, duration_hours: 2, reason: "cluster" }
    })
    assert.strictEqual(banned.status, 200, JSON.stringify(banned.body))
    // A answers once B confirmed the revocation (at most a second: RevocationBroadcast.ts); from then on B
    // has closed the connection, or closes it at once, and refuses the token.
    const answered = Date.now()
    const closed = yield* client.closed
    const refused = yield* me(b.base, user.token)
    const elapsed = Date.now() - answered
    expect(closed).toMatchObject({ code: 4004 })
    assert.strictEqual(refused, 401)
    assert.isBelow(elapsed, 1000, `B took ${elapsed} ms after the ban's answer`)
    for (const api of [a, b]) assert.notMatch(api.started.output(), /sessions: .*revocation/)

    // The user cannot come back on either process, by IDENTIFY or login; others are untouched.
    const again = yield* clusterJson(`${b.base}/auth/login`, {
      method: "POST",
      body: { email: "alice@example.com", password: "correct horse battery" }
    })
    assert.strictEqual(again.status, 403)
    expect(again.body).toMatchObject({ code: "ACCOUNT_SUSPENDED_TEMPORARILY" })
    assert.strictEqual(yield* me(a.base, user.token), 401)
    assert.strictEqual(yield* me(b.base, bystander.token), 200)
    // The other user's connection on B is still open: it answers a heartbeat.
    bystanderSide.send({ op: 1, d: null })
    let frame = yield* bystanderSide.next
    while (frame.op !== 11) frame = yield* bystanderSide.next
    assert.strictEqual(frame.op, 11)
  }), { timeout: 180_000 })
