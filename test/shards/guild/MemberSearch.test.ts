import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { EMPTY_PROFILE, type MemberProfile } from "../../../shards/guild/members/MemberProfile.ts"
import { searchMembers, searchResponseJson } from "../../../shards/guild/members/MemberSearch.ts"
import { noSearchIndex, searchIndex } from "../../../shards/guild/members/SearchIndex.ts"
import { MemberSearchResponse } from "../../../src/model/Members.ts"
import { createGuild, type GuildState } from "../../../shards/guild/State.ts"
import type { GuildMemberResponse } from "../../../src/model/Guilds.ts"
import { SNOWFLAKE_EPOCH } from "../../../src/platform/Snowflake.ts"
import { SharedMap } from "../../../shards/guild/SharedMap.ts"

/** A snowflake made at `ms` (unix), so the user's creation time is known. */
const idAt = (ms: number, n: number) => (((BigInt(ms) - SNOWFLAKE_EPOCH) << 22n) + BigInt(n)).toString()

const user = (id: string, username: string, globalName: string | null, bot = false) => ({
  id, username, discriminator: "7", global_name: globalName, avatar: null, avatar_color: null, flags: 0, bot
})
const owner = user(idAt(Date.parse("2020-01-01T00:00:00Z"), 1), "owner", null)
const base = createGuild({ guildId: "100", channelId: "101", owner, name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })

const withMembers = (
  state: GuildState,
  members: ReadonlyArray<{ member: GuildMemberResponse; profile?: MemberProfile }>
): GuildState => ({
  ...state,
  members: SharedMap.from([...state.members, ...members.map((m): [string, GuildMemberResponse] => [m.member.user.id, m.member])]),
  memberProfiles: SharedMap.from([
    ...state.memberProfiles,
    ...members.flatMap((m): Array<[string, MemberProfile]> => (m.profile ? [[m.member.user.id, m.profile]] : []))
  ])
})

const member = (u: ReturnType<typeof user>, joinedAt: string, roles: ReadonlyArray<string> = [], nick: string | null = null) =>
  ({ user: u, nick, roles, joined_at: joinedAt, mute: false, deaf: false })

const alice = user(idAt(Date.parse("2021-01-01T00:00:00Z"), 2), "alice", "Alice Liddell")
const bob = user(idAt(Date.parse("2022-01-01T00:00:00Z"), 3), "bobby", null, true)
const carol = user(idAt(Date.parse("2023-01-01T00:00:00Z"), 4), "carol", "Sal")
const state = withMembers(base, [
  { member: member(alice, "2026-02-01T00:00:00.000Z", ["r1", "r2"]) },
  { member: member(bob, "2026-03-01T00:00:00.000Z", ["r1"], "Al the bot"), profile: { ...EMPTY_PROFILE, joinSourceType: 1, sourceInviteCode: "abc", inviterId: alice.id } },
  { member: member(carol, "2026-04-01T00:00:00.000Z") }
])
const ids = (s: GuildState, request: Parameters<typeof searchMembers>[1]) => searchMembers(s, request).members.map((m) => m.username)

describe("member search", () => {
  it("matches inside any one name, with queries of one, two and more letters, never across two names", () => {
    assert.deepStrictEqual(ids(state, { query: "l" }), ["carol", "bobby", "alice"])
    assert.deepStrictEqual(ids(state, { query: "AL" }), ["carol", "bobby", "alice"])
    assert.deepStrictEqual(ids(state, { query: "ddel" }), ["alice"])
    assert.deepStrictEqual(ids(state, { query: "the bot" }), ["bobby"])
    // "alice" then "alice liddell" are two names of one member: "ceal" would span them.
    assert.deepStrictEqual(ids(state, { query: "ceal" }), [])
    assert.deepStrictEqual(ids(state, { query: "q" }), [])
    assert.strictEqual(searchMembers(state, { query: "a", limit: 1 }).total_result_count, 3)
  })

  it("defaults to everyone, newest join first, with the result shape of GuildMemberSearchResult", () => {
    const all = searchMembers(state, {})
    assert.deepStrictEqual(all.members.map((m) => m.username), ["carol", "bobby", "alice", "owner"])
    assert.strictEqual(all.total_result_count, 4)
    assert.strictEqual(all.indexing, false)
    const bobResult = all.members[1]
    assert.deepStrictEqual(bobResult, {
      id: `100:${bob.id}`,
      guild_id: "100",
      user_id: bob.id,
      username: "bobby",
      discriminator: "0007",
      global_name: null,
      nickname: "Al the bot",
      role_ids: ["r1"],
      joined_at: Date.parse("2026-03-01T00:00:00Z") / 1000,
      supplemental: { join_source_type: 1, source_invite_code: "abc", inviter_id: alice.id },
      is_bot: true
    })
  })

  it("matches usernames, global names and nicknames, case-insensitively; relevance puts exact and prefix first", () => {
    assert.deepStrictEqual(ids(state, { query: "AL" }), ["carol", "bobby", "alice"])
    assert.deepStrictEqual(ids(state, { query: "al", sort_by: "relevance" }), ["bobby", "alice", "carol"])
    assert.deepStrictEqual(ids(state, { query: "SAL", sort_by: "relevance" }), ["carol"])
    assert.deepStrictEqual(ids(state, { query: "zz" }), [])
  })

  it("filters by roles (all of them), bots, join source, invite code and time ranges", () => {
    assert.deepStrictEqual(ids(state, { role_ids: ["r1"] }), ["bobby", "alice"])
    assert.deepStrictEqual(ids(state, { role_ids: ["r1", "r2"] }), ["alice"])
    assert.deepStrictEqual(ids(state, { is_bot: true }), ["bobby"])
    assert.deepStrictEqual(ids(state, { is_bot: false, sort_order: "asc" }), ["owner", "alice", "carol"])
    assert.deepStrictEqual(ids(state, { join_source_type: [1] }), ["bobby"])
    assert.deepStrictEqual(ids(state, { source_invite_code: ["abc", "zzz"] }), ["bobby"])
    const march = Date.parse("2026-03-01T00:00:00Z") / 1000
    assert.deepStrictEqual(ids(state, { joined_at_gte: march }), ["carol", "bobby"])
    assert.deepStrictEqual(ids(state, { joined_at_lte: march, joined_at_gte: march }), ["bobby"])
    const y2022 = Date.parse("2022-01-01T00:00:00Z") / 1000
    assert.deepStrictEqual(ids(state, { user_created_at_lte: y2022 }), ["bobby", "alice", "owner"])
    assert.deepStrictEqual(ids(state, { user_created_at_gte: y2022 }), ["carol", "bobby"])
  })

  it("pages with offset and limit while counting every match", () => {
    const page = searchMembers(state, { limit: 2, offset: 1 })
    assert.deepStrictEqual(page.members.map((m) => m.username), ["bobby", "alice"])
    assert.strictEqual(page.page_result_count, 2)
    assert.strictEqual(page.total_result_count, 4)
    assert.strictEqual(searchMembers(state, { offset: 10 }).page_result_count, 0)
  })

  it("renders the response as encoding it gives, with each member's part made once per index", () => {
    const encode = Schema.encodeSync(MemberSearchResponse)
    for (const request of [{}, { query: "l", limit: 2 }, { query: "zzz" }, { role_ids: ["r1"], offset: 1 }]) {
      const response = searchMembers(state, request)
      assert.deepStrictEqual(JSON.parse(searchResponseJson(response)), encode(response))
    }
    assert.strictEqual(searchMembers(state, {}).members[0], searchMembers(state, { query: "carol" }).members[0])
  })

  it("indexes a state's members once, and other members or profiles afresh", () => {
    assert.strictEqual(searchIndex(state), searchIndex(state))
    // A write that changes neither (a message, a channel) leaves the index as it was.
    assert.strictEqual(searchIndex({ ...state, channelMessages: SharedMap.empty() }), searchIndex(state))
    const next = withMembers(state, [{ member: member(user(idAt(Date.now(), 9), "dave", null), "2026-05-01T00:00:00.000Z") }])
    assert.notStrictEqual(searchIndex(next), searchIndex(state))
    assert.deepStrictEqual(ids(next, { limit: 1 }), ["dave"])
    const reprofiled = { ...state, memberProfiles: state.memberProfiles.with(alice.id, { ...EMPTY_PROFILE, joinSourceType: 3 }) }
    assert.notStrictEqual(searchIndex(reprofiled), searchIndex(state))
    assert.deepStrictEqual(ids(reprofiled, { join_source_type: [3] }), ["alice"])
    assert.deepStrictEqual(ids(state, { join_source_type: [3] }), [])
  })

  it("answers a query typed letter by letter as a new index answers it, from what it found before", () => {
    const names = ["alice", "alicia", "malice", "alistair", "bob", "calico", "al ice"]
    const typed = withMembers(base, names.map((name, i) => ({
      member: member(user(idAt(Date.parse("2024-01-01T00:00:00Z"), 20 + i), name, i % 2 === 0 ? `Global ${name}` : null),
        `2026-0${1 + (i % 9)}-01T00:00:00.000Z`, [], i === 5 ? "lice nick" : null)
    })))
    const queries = ["al", "ali", "alic", "alice", "lice", "malice", "ice", "al i", "global", "global al", "zz", "zzz", "alicez"]
    for (const query of queries) {
      // Copies of the members have an index of their own, with nothing found yet.
      const fresh = () => ({ ...typed, members: SharedMap.from(typed.members), latestSearchIndex: noSearchIndex() })
      assert.deepStrictEqual(ids(typed, { query, limit: 50 }), ids(fresh(), { query, limit: 50 }), query)
      assert.deepStrictEqual(searchMembers(typed, { query }).total_result_count, searchMembers(fresh(), { query }).total_result_count)
    }
    assert.deepStrictEqual(ids(typed, { query: "alice", limit: 50 }).sort(), ["alice", "malice"])
    assert.deepStrictEqual(ids(typed, { query: "lice" }).sort(), ["alice", "calico", "malice"])
    const found = searchIndex(typed).found
    assert.isTrue(found.has("alic") && found.has("alice"))
    // Queries of one or two letters are the index's own postings, not kept again.
    assert.isFalse(found.has("al"))
  })

  it("keeps the candidates of at most 64 queries per index, the latest", () => {
    const many = withMembers(base, Array.from({ length: 200 }, (_, i) => ({
      member: member(user(idAt(Date.parse("2024-01-01T00:00:00Z"), 100 + i), `user${i}`, null), "2026-01-02T00:00:00.000Z")
    })))
    for (let i = 0; i < 100; i++) searchMembers(many, { query: `user${i}` })
    searchMembers(many, { query: "user5" })
    const found = searchIndex(many).found
    assert.strictEqual(found.size, 64)
    assert.isFalse(found.has("user0"))
    assert.deepStrictEqual([...found.keys()].slice(-2), ["user99", "user5"])
    assert.deepStrictEqual(ids(many, { query: "user5", limit: 50 }).length, 11)
  })

  it("answers on 10,000 members in a few milliseconds", () => {
    const many = withMembers(base, Array.from({ length: 10_000 }, (_, i) => ({
      member: member(user(idAt(Date.parse("2024-01-01T00:00:00Z") + i * 1000, i), `user${i}`, i % 7 === 0 ? `Seven ${i}` : null),
        new Date(Date.parse("2026-01-02T00:00:00Z") + i * 60_000).toISOString(), i % 3 === 0 ? ["r3"] : [], i % 11 === 0 ? `nick${i}` : null)
    })))
    searchIndex(many)
    // Warm up: the first runs measure the compiler, not the search.
    for (let round = 0; round < 50; round++) searchMembers(many, { query: `seven ${round}`, role_ids: ["r3"] })
    const times: Array<number> = []
    let total = 0
    for (let round = 0; round < 200; round++) {
      const started = performance.now()
      total += searchMembers(many, { query: `seven ${round}`, role_ids: ["r3"], limit: 25 }).total_result_count
      times.push(performance.now() - started)
    }
    times.sort((a, b) => a - b)
    console.log(`member search on 10,000: median ${times[100]?.toFixed(2)} ms, p99 ${times[198]?.toFixed(2)} ms`)
    const p99 = times[Math.floor(times.length * 0.99)] ?? Infinity
    assert.isAbove(total, 0)
    assert.isBelow(p99, 20, `p99 ${p99.toFixed(2)} ms`)
    assert.strictEqual(searchMembers(many, { query: "user9999" }).members[0]?.username, "user9999")
  })
})
