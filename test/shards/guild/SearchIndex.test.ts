import { assert, describe, it } from "@effect/vitest"
import { EMPTY_PROFILE } from "../../../shards/guild/members/MemberProfile.ts"
import { searchMembers } from "../../../shards/guild/members/MemberSearch.ts"
import { noSearchIndex, type SearchIndex, searchIndex } from "../../../shards/guild/members/SearchIndex.ts"
import type { GuildMember } from "../../../shards/guild/members/GuildMember.ts"
import { SharedMap } from "../../../shards/guild/SharedMap.ts"
import { createGuild, type GuildState } from "../../../shards/guild/State.ts"

const user = (n: number, username: string, globalName: string | null = null) => ({
  id: String(1_000_000 + n), username, discriminator: "1", global_name: globalName, avatar: null, avatar_color: null, flags: 0, bot: false
})
const base = createGuild({ guildId: "100", channelId: "101", owner: user(0, "owner"), name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })
const members: Array<GuildMember> = Array.from({ length: 300 }, (_, i) => ({
  user: user(i + 1, `member ${i}`, i % 5 === 0 ? `Five ${i}` : null),
  nick: i % 7 === 0 ? `nick ${i}` : null,
  roles: [],
  joined_at: new Date(Date.parse("2026-01-02T00:00:00Z") + (i % 50) * 60_000).toISOString(),
  mute: false,
  deaf: false
}))
const guild: GuildState = {
  ...base,
  members: base.members.withAll(members.map((m) => [m.user.id, m])),
  // Every third member has a profile (a join source).
  memberProfiles: base.memberProfiles.withAll(
    members.filter((_, i) => i % 3 === 0).map((m) => [m.user.id, { ...EMPTY_PROFILE, joinSourceType: 1 }])
  )
}

/** The index as a build from nothing gives it, comparable with deepStrictEqual. */
const shape = (index: SearchIndex) => ({
  order: index.entries.map((e) => [e.member.user.id, e.username, e.globalName, e.nick, e.profile.joinSourceType]),
  grams: Object.fromEntries([...index.grams].map(([gram, postings]) => [gram, [...postings]]).sort())
})
const built = (state: GuildState) => shape(searchIndex({ ...state, latestSearchIndex: noSearchIndex() }))

const renamed = (state: GuildState, n: number, nick: string | null): GuildState => {
  const member = state.members.get(String(1_000_000 + n))
  if (member === undefined) throw new Error(`no member ${n}`)
  return { ...state, members: state.members.with(member.user.id, { ...member, nick }) }
}

describe("the member-search index", () => {
  it("is patched for the members that changed, and then is what a build from nothing gives", () => {
    const first = searchIndex(guild)
    let state = guild
    const profiled = (n: number, joinSourceType: number) => (s: GuildState): GuildState => ({
      ...s,
      memberProfiles: s.memberProfiles.with(String(1_000_000 + n), { ...EMPTY_PROFILE, joinSourceType })
    })
    // Each step, and whether the index is patched (a member's first profile changes the profiles' keys: built afresh).
    const steps: Array<readonly [(s: GuildState) => GuildState, boolean]> = [
      [(s) => renamed(s, 10, "Zed"), true],
      [(s) => renamed(s, 15, null), true],
      [(s) => renamed(s, 15, "member 14 again"), true],
      [profiled(19, 2), true],
      [(s) => renamed(renamed(s, 1, "áé ü"), 2, ""), true],
      [profiled(21, 3), false]
    ]
    for (const [step, patches] of steps) {
      const before = searchIndex(state)
      state = step(state)
      const after = searchIndex(state)
      assert.notStrictEqual(after, before)
      assert.deepStrictEqual(shape(after), built(state))
      // Patched: the members that did not change keep their entries; built afresh: none does.
      const kept = after.entries.filter((e, i) => e === before.entries[i]).length
      assert.strictEqual(kept, patches ? after.entries.length - (step === steps[4]?.[0] ? 2 : 1) : 0)
    }
    assert.notStrictEqual(searchIndex(state), first)
    for (const query of ["zed", "nick 14", "member 14 again", "áé", "five", "m"]) {
      const fresh = { ...state, latestSearchIndex: noSearchIndex() }
      assert.deepStrictEqual(searchMembers(state, { query, limit: 100 }), searchMembers(fresh, { query, limit: 100 }), query)
    }
    assert.deepStrictEqual(searchMembers(state, { query: "zed" }).members.map((m) => m.nickname), ["Zed"])
    // The member whose nick was "nick 14" is found by its new one only.
    assert.deepStrictEqual(searchMembers(state, { query: "nick 14" }).members.map((m) => m.nickname).sort(), ["nick 140", "nick 147"])
    assert.deepStrictEqual(searchMembers(state, { query: "14 again" }).members.map((m) => m.username), ["member 14"])
    assert.deepStrictEqual(searchMembers(state, { join_source_type: [2] }).members.map((m) => m.username), ["member 18"])
    assert.deepStrictEqual(searchMembers(state, { join_source_type: [3] }).members.map((m) => m.username), ["member 20"])
  })

  it("is built afresh when a member comes or goes, and kept when neither members nor profiles change", () => {
    const kept = searchIndex(guild)
    assert.strictEqual(searchIndex({ ...guild, channelMessages: SharedMap.empty() }), kept)
    const left = { ...guild, members: guild.members.without(String(1_000_000 + 3)) }
    assert.deepStrictEqual(shape(searchIndex(left)), built(left))
    assert.strictEqual(searchIndex(left).entries.length, 300)
    const joined = { ...left, members: left.members.with(String(1_000_000 + 3), members[2] as GuildMember) }
    assert.deepStrictEqual(shape(searchIndex(joined)), built(joined))
    assert.strictEqual(searchIndex(joined).entries.length, 301)
  })
})
