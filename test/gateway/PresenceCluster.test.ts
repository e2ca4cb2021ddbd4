import { assert, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { field } from "../support/Api.ts"
import { clusterEnvironment, clusterJson, clusterRegister, shardAndTwoApis } from "../support/Cluster.ts"
import { stopProcess } from "../support/Processes.ts"
import { dataOf, type Frame, type GatewayClient, identifyAt, nextOfType } from "./Client.ts"

const json = clusterJson

/** The next PRESENCE_UPDATE about `userId`, waiting up to `seconds` (a crashed process is noticed within ~20 s). */
const presenceOf = (client: GatewayClient, userId: string, seconds = 5): Effect.Effect<Record<string, unknown>> =>
  Effect.gen(function*() {
    const deadline = Date.now() + seconds * 1000
    while (true) {
      const got: Exit.Exit<Frame> = yield* Effect.exit(nextOfType(client, "PRESENCE_UPDATE"))
      if (Exit.isSuccess(got)) {
        const d = dataOf(got.value)
        if (field(d.user, "id") === userId) return d
      } else if (Date.now() > deadline) {
        return yield* Effect.die(new Error(`no PRESENCE_UPDATE of ${userId} in ${seconds} s`))
      }
    }
  })

it.live("presences cross API processes: to guild members and friends, offline when the last session anywhere ends or its process dies", () =>
  Effect.gen(function*() {
    const { env: common } = yield* clusterEnvironment()
    const { shard, first: one, second: two } = yield* shardAndTwoApis(common)

    const register = (email: string) => clusterRegister(two.base, email)
    const a = yield* register("a@example.com")
    const member = yield* register("member@example.com")
    const friend = yield* register("friend@example.com")
    // A owns a guild the member joins; the friend shares no guild with A.
    const created = yield* json(`${two.base}/guilds`, { method: "POST", token: a.token, body: { name: "Presences" } })
    const guildId = field(created.body, "id")
    const guild = yield* json(`${two.base}/guilds/${guildId}`, { token: a.token })
    const general = (guild.body as { channels: ReadonlyArray<{ id: string }> }).channels[0]?.id ?? ""
    const invite = yield* json(`${two.base}/channels/${general}/invites`, { method: "POST", token: a.token, body: {} })
    assert.strictEqual((yield* json(`${two.base}/invites/${field(invite.body, "code")}`, { method: "POST", token: member.token })).status, 200)
    assert.strictEqual((yield* json(`${two.base}/users/@me/relationships/${a.userId}`, { method: "POST", token: friend.token })).status, 200)
    assert.strictEqual(
      (yield* json(`${two.base}/users/@me/relationships/${friend.userId}`, { method: "PUT", token: a.token, body: {} })).status,
      200
    )

    const memberSide = (yield* identifyAt(two.ws, member.token)).client
    yield* nextOfType(memberSide, "GUILD_CREATE")
    const friendSide = (yield* identifyAt(two.ws, friend.token)).client

    // A comes online on process one, then sets dnd: both hear it on process two.
    const a1 = (yield* identifyAt(one.ws, a.token)).client
    expect(yield* presenceOf(memberSide, a.userId)).toMatchObject({ guild_id: guildId, status: "online" })
    expect(yield* presenceOf(friendSide, a.userId)).toMatchObject({ status: "online" })
    a1.send({ op: 3, d: { since: null, activities: [], status: "dnd", afk: false } })
    expect(yield* presenceOf(memberSide, a.userId)).toMatchObject({ guild_id: guildId, status: "dnd" })
    const toFriend = yield* presenceOf(friendSide, a.userId)
    expect(toFriend).toMatchObject({ status: "dnd" })
    expect(toFriend).not.toHaveProperty("guild_id")

    // A second session of A on process two: closing the first one does not make A offline.
    const a2 = (yield* identifyAt(two.ws, a.token)).client
    a2.send({ op: 3, d: { since: null, activities: [], status: "dnd", afk: false } })
    a1.close(1000)
    yield* a1.closed
    a2.send({ op: 3, d: { since: null, activities: [], status: "idle", afk: true } })
    let seen = yield* presenceOf(memberSide, a.userId)
    while (seen.status === "dnd" || seen.status === "online") seen = yield* presenceOf(memberSide, a.userId)
    assert.strictEqual(seen.status, "idle")

    // The last session anywhere ends: offline for both.
    a2.close(1000)
    expect(yield* presenceOf(memberSide, a.userId)).toMatchObject({ status: "offline" })
    let friendSaw = yield* presenceOf(friendSide, a.userId)
    while (friendSaw.status !== "offline") friendSaw = yield* presenceOf(friendSide, a.userId)

    // A's process dies without a word: process two notices it stopped beating and tells.
    yield* identifyAt(one.ws, a.token)
    expect(yield* presenceOf(memberSide, a.userId)).toMatchObject({ status: "online" })
    yield* stopProcess(one.started.child, "SIGKILL")
    expect(yield* presenceOf(memberSide, a.userId, 40)).toMatchObject({ guild_id: guildId, status: "offline" })
    let friendLater = yield* presenceOf(friendSide, a.userId, 40)
    while (friendLater.status !== "offline") friendLater = yield* presenceOf(friendSide, a.userId, 40)

    yield* stopProcess(two.started.child)
    yield* stopProcess(shard.child)
  }), { timeout: 240_000 })
