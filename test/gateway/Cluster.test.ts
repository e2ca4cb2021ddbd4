import { assert, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { field } from "../support/Api.ts"
import { clusterEnvironment, clusterJson, clusterRegister, shardAndTwoApis } from "../support/Cluster.ts"
import { stopProcess } from "../support/Processes.ts"
import { dataOf, identifyAt } from "./Client.ts"

const json = clusterJson

it.live("a session on API process A hears a change made through API process B to a guild whose actor is on shard process C", () =>
  Effect.gen(function*() {
    const { env: common } = yield* clusterEnvironment()
    const { shard, first: a, second: b } = yield* shardAndTwoApis(common)

    const register = (email: string) => clusterRegister(b.base, email)
    const owner = yield* register("owner@example.com")
    const member = yield* register("member@example.com")
    const created = yield* json(`${b.base}/guilds`, { method: "POST", token: owner.token, body: { name: "Spread" } })
    const guildId = field(created.body, "id")

    const onA = `${a.base.replace("http://", "ws://")}/gateway/socket?v=1&encoding=json`
    const ownerSide = yield* identifyAt(onA, owner.token)
    expect(ownerSide.ready.guilds).toEqual([{ id: guildId, unavailable: true }])
    assert.strictEqual((yield* ownerSide.client.dispatch).t, "GUILD_CREATE")
    const memberSide = yield* identifyAt(onA, member.token)

    const renamed = yield* json(`${b.base}/guilds/${guildId}`, { method: "PATCH", token: owner.token, body: { name: "Renamed on B" } })
    assert.strictEqual(renamed.status, 200, JSON.stringify(renamed.body))
    const update = yield* ownerSide.client.dispatch
    assert.strictEqual(update.t, "GUILD_UPDATE")
    expect(update.d).toMatchObject({ id: guildId, name: "Renamed on B" })

    // The member's sessions hear of the join on the member's own channel, then follow the guild.
    const guild = yield* json(`${b.base}/guilds/${guildId}`, { token: owner.token })
    const general = (guild.body as { channels: ReadonlyArray<{ id: string }> }).channels[0]?.id ?? ""
    const invite = yield* json(`${b.base}/channels/${general}/invites`, { method: "POST", token: owner.token, body: {} })
    const joined = yield* json(`${b.base}/invites/${field(invite.body, "code")}`, { method: "POST", token: member.token })
    assert.strictEqual(joined.status, 200, JSON.stringify(joined.body))
    const create = yield* memberSide.client.dispatch
    assert.strictEqual(create.t, "GUILD_CREATE")
    assert.strictEqual(dataOf(create).id, guildId)
    // Rendered on the shard and carried to A: the member's own member comes along.
    expect(dataOf(create)).toMatchObject({ unavailable: false, members: [{ user: { id: member.userId } }, { user: { id: owner.userId } }] })
    assert.deepStrictEqual([(yield* ownerSide.client.dispatch).t, (yield* ownerSide.client.dispatch).t], ["INVITE_CREATE", "GUILD_MEMBER_ADD"])

    // Who may see a channel is decided on the shard: the member never hears of the hidden one.
    const hidden = yield* json(`${b.base}/guilds/${guildId}/channels`, {
      method: "POST",
      token: owner.token,
      body: { type: 0, name: "staff", permission_overwrites: [{ id: guildId, type: 0, deny: String(Permission.VIEW_CHANNEL) }] }
    })
    assert.strictEqual(hidden.status, 200, JSON.stringify(hidden.body))
    assert.strictEqual((yield* ownerSide.client.dispatch).t, "CHANNEL_CREATE")
    yield* json(`${b.base}/guilds/${guildId}`, { method: "PATCH", token: owner.token, body: { name: "Again" } })
    const next = yield* memberSide.client.dispatch
    assert.strictEqual(next.t, "GUILD_UPDATE")

    // A's sessions count in the stats, and A's shutdown tells them to reconnect.
    // Each process republishes its figures every few seconds.
    const sessions = json(`${b.base}/admin/gateway/stats`, { token: `Admin ${common.ADMIN_BOOTSTRAP_KEY}` }).pipe(
      Effect.map((reply) => (reply.body as { sessions: number }).sessions)
    )
    let counted = yield* sessions
    for (let attempt = 0; attempt < 40 && counted < 2; attempt++) {
      yield* Effect.sleep("250 millis")
      counted = yield* sessions
    }
    assert.strictEqual(counted, 2)
    yield* stopProcess(a.started.child)
    assert.strictEqual((yield* ownerSide.client.dispatch).t, "GUILD_UPDATE")
    assert.strictEqual((yield* ownerSide.client.next).op, 7)
    assert.strictEqual((yield* ownerSide.client.closed).code, 1012)

    yield* stopProcess(b.started.child)
    yield* stopProcess(shard.child)
  }), { timeout: 240_000 })
