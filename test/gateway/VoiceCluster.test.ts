import { assert, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { field } from "../support/Api.ts"
import { clusterEnvironment, clusterJson, clusterRegister, shardAndTwoApis } from "../support/Cluster.ts"
import { stopProcess } from "../support/Processes.ts"
import { dataOf, type Frame, type GatewayClient, identifyAt, nextMatching } from "./Client.ts"

const json = clusterJson

const isGuild = (guildId: string) => (d: unknown) => typeof d === "object" && d !== null && "id" in d && d.id === guildId

/** The next VOICE_STATE_UPDATE about `userId`, waiting up to `seconds` (a stopped process is noticed within ~20 s). */
const voiceOf = (client: GatewayClient, userId: string, seconds = 5): Effect.Effect<Record<string, unknown>> =>
  Effect.gen(function*() {
    const deadline = Date.now() + seconds * 1000
    while (true) {
      const got: Exit.Exit<Frame> = yield* Effect.exit(
        nextMatching(client, "VOICE_STATE_UPDATE", (d) => typeof d === "object" && d !== null && "user_id" in d && d.user_id === userId)
      )
      if (Exit.isSuccess(got)) return dataOf(got.value)
      if (Date.now() > deadline) return yield* Effect.die(new Error(`no VOICE_STATE_UPDATE of ${userId} in ${seconds} s`))
    }
  })

it.live("voice states cross API processes: joins, GUILD_CREATE, moves over HTTP, leaving when the session or its process ends", () =>
  Effect.gen(function*() {
    const { env } = yield* clusterEnvironment()
    const { shard, first: one, second: two } = yield* shardAndTwoApis(env)

    const owner = yield* clusterRegister(two.base, "owner@example.com")
    const member = yield* clusterRegister(two.base, "member@example.com")
    const created = yield* json(`${two.base}/guilds`, { method: "POST", token: owner.token, body: { name: "Voice" } })
    const guildId = field(created.body, "id")
    const channel = (name: string) =>
      Effect.map(
        json(`${two.base}/guilds/${guildId}/channels`, { method: "POST", token: owner.token, body: { type: 2, name } }),
        (reply) => field(reply.body, "id")
      )
    const lounge = yield* channel("Lounge")
    const stage = yield* channel("Stage")
    const guild = yield* json(`${two.base}/guilds/${guildId}`, { token: owner.token })
    const general = (guild.body as { channels: ReadonlyArray<{ id: string; type: number }> }).channels.find((c) => c.type === 0)?.id ?? ""
    const invite = yield* json(`${two.base}/channels/${general}/invites`, { method: "POST", token: owner.token, body: {} })
    assert.strictEqual((yield* json(`${two.base}/invites/${field(invite.body, "code")}`, { method: "POST", token: member.token })).status, 200)

    // The owner watches on process two; the member joins voice on process one.
    const watcher = (yield* identifyAt(two.ws, owner.token)).client
    yield* nextMatching(watcher, "GUILD_CREATE", isGuild(guildId))
    const { client: memberSide, ready } = yield* identifyAt(one.ws, member.token)
    yield* nextMatching(memberSide, "GUILD_CREATE", isGuild(guildId))
    const sessionId = field(ready, "session_id")
    memberSide.send({ op: 4, d: { guild_id: guildId, channel_id: lounge, self_mute: false, self_deaf: false } })
    expect(yield* voiceOf(watcher, member.userId)).toMatchObject({ channel_id: lounge, session_id: sessionId })

    // A new session on process two sees the member in voice.
    const second = (yield* identifyAt(two.ws, owner.token)).client
    const create = dataOf(yield* nextMatching(second, "GUILD_CREATE", isGuild(guildId)))
    expect(create.voice_states).toEqual([expect.objectContaining({ user_id: member.userId, channel_id: lounge, session_id: sessionId })])

    // Moved through process two: the member's session on process one hears it, and still holds the state.
    const moved = yield* json(`${two.base}/guilds/${guildId}/members/${member.userId}`, {
      method: "PATCH",
      token: owner.token,
      body: { channel_id: stage }
    })
    assert.strictEqual(moved.status, 200, JSON.stringify(moved.body))
    expect(yield* voiceOf(watcher, member.userId)).toMatchObject({ channel_id: stage })
    let seen = yield* voiceOf(memberSide, member.userId)
    while (seen.channel_id !== stage) seen = yield* voiceOf(memberSide, member.userId)

    // The session closes on process one: the member leaves voice.
    memberSide.close(1000)
    expect(yield* voiceOf(watcher, member.userId)).toMatchObject({ channel_id: null, session_id: sessionId })
    const notIn = yield* json(`${two.base}/guilds/${guildId}/members/${member.userId}`, {
      method: "PATCH",
      token: owner.token,
      body: { channel_id: lounge }
    })
    expect(notIn).toMatchObject({ status: 400, body: { code: "USER_NOT_IN_VOICE" } })

    // In voice again, then process one dies without a word: process two notices and tells.
    const again = (yield* identifyAt(one.ws, member.token)).client
    again.send({ op: 4, d: { guild_id: guildId, channel_id: lounge, self_mute: false, self_deaf: false } })
    expect(yield* voiceOf(watcher, member.userId, 15)).toMatchObject({ channel_id: lounge })
    yield* stopProcess(one.started.child, "SIGKILL")
    expect(yield* voiceOf(watcher, member.userId, 40)).toMatchObject({ channel_id: null })
    const third = (yield* identifyAt(two.ws, owner.token)).client
    expect(dataOf(yield* nextMatching(third, "GUILD_CREATE", isGuild(guildId))).voice_states).toEqual([])

    // In voice through process two, then timed out: the guild's actor, on the shard, says they may not stay.
    const back = (yield* identifyAt(two.ws, member.token)).client
    yield* nextMatching(back, "GUILD_CREATE", isGuild(guildId))
    back.send({ op: 4, d: { guild_id: guildId, channel_id: lounge, self_mute: false, self_deaf: false } })
    expect(yield* voiceOf(watcher, member.userId)).toMatchObject({ channel_id: lounge })
    const timedOut = yield* json(`${two.base}/guilds/${guildId}/members/${member.userId}`, {
      method: "PATCH",
      token: owner.token,
      body: { communication_disabled_until: new Date(Date.now() + 3_600_000).toISOString() }
    })
    assert.strictEqual(timedOut.status, 200, JSON.stringify(timedOut.body))
    expect(yield* voiceOf(watcher, member.userId)).toMatchObject({ channel_id: null })

    yield* stopProcess(two.started.child)
    yield* stopProcess(shard.child)
  }), { timeout: 240_000 })
