import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { withBan } from "../../shards/guild/members/BanRules.ts"
import {
  findInvite,
  type GuildInvite,
  inviteExpiresAt,
  invitesDisabled,
  isInviteUsable,
  pruneDeadInvites,
  reusableInvite
} from "../../shards/guild/members/InviteRules.ts"
import { createInvite, deleteInvite, joinByInvite } from "../../shards/guild/operations/Invites.ts"
import { createGuild, type GuildState } from "../../shards/guild/State.ts"
import { SharedMap } from "../../shards/guild/SharedMap.ts"
import { CarriedId } from "../../src/model/Ids.ts"
import { defaultLimits } from "../../src/model/Limits.ts"

const user = (id: string) => ({ id, username: `u${id}`, discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 })
const T0 = Date.parse("2026-03-01T00:00:00.000Z")
const base = createGuild({ guildId: "100", channelId: "101", owner: user("1"), name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })
const invite = (code: string, overrides: Partial<GuildInvite> = {}): GuildInvite => ({
  code,
  channelId: "101",
  inviter: user("1"),
  createdAt: new Date(T0).toISOString(),
  maxAge: 3600,
  maxUses: 0,
  uses: 0,
  temporary: false,
  ...overrides
})
const withInvite = (state: GuildState, i: GuildInvite): GuildState => ({ ...state, invites: new Map(state.invites).set(i.code, i) })
const context = (actorId: string, now = T0) => ({ guildId: "100", actorId, operationId: "5000", reason: null, limits: defaultLimits, now })
const failure = <A, E>(effect: Effect.Effect<A, E>) => {
  const exit = Effect.runSyncExit(effect)
  return Exit.isFailure(exit) ? JSON.stringify(exit.cause) : "succeeded"
}

describe("invite rules", () => {
  it("expires after max_age, never with 0, and stops at max_uses", () => {
    assert.strictEqual(inviteExpiresAt(invite("a")), "2026-03-01T01:00:00.000Z")
    assert.isTrue(isInviteUsable(invite("a"), T0 + 3_599_999))
    assert.isFalse(isInviteUsable(invite("a"), T0 + 3_600_000))
    assert.strictEqual(inviteExpiresAt(invite("b", { maxAge: 0 })), null)
    assert.isTrue(isInviteUsable(invite("b", { maxAge: 0 }), T0 + 10 ** 12))
    assert.isFalse(isInviteUsable(invite("c", { maxUses: 2, uses: 2 }), T0))
    assert.isTrue(isInviteUsable(invite("c", { maxUses: 2, uses: 1 }), T0))
  })

  it("finds the vanity URL as an invite into the system channel", () => {
    const s: GuildState = { ...base, guild: { ...base.guild, vanity_url_code: "hall" } }
    assert.deepStrictEqual(findInvite(s, "hall", T0), {
      code: "hall",
      channelId: "101",
      inviter: null,
      createdAt: base.createdAt,
      maxAge: 0,
      maxUses: 0,
      uses: 0,
      temporary: false
    })
    assert.isUndefined(findInvite(base, "hall", T0))
  })

  it("knows when invites are off: the feature or the disabled operation", () => {
    assert.isFalse(invitesDisabled(base))
    assert.isTrue(invitesDisabled({ ...base, guild: { ...base.guild, features: ["INVITES_DISABLED"] } }))
    assert.isTrue(invitesDisabled({ ...base, guild: { ...base.guild, disabled_operations: 8 } }))
  })

  it("reuses a live unused invite of the same settings and prunes dead ones", () => {
    const s = withInvite(withInvite(base, invite("live")), invite("dead", { createdAt: "2026-01-01T00:00:00.000Z" }))
    const settings = { channelId: "101", maxAge: 3600, maxUses: 0, temporary: false }
    assert.strictEqual(reusableInvite(s, "1", settings, T0)?.code, "live")
    assert.isUndefined(reusableInvite(s, "1", { ...settings, maxUses: 5 }, T0))
    const pruned = pruneDeadInvites(s, T0)
    assert.deepStrictEqual(pruned.dead, ["dead"])
    assert.deepStrictEqual([...pruned.state.invites.keys()], ["live"])
  })
})

describe("invite decisions", () => {
  const join = (state: GuildState, code: string, userId: string, now = T0) =>
    joinByInvite.decide(state, joinByInvite.command.make({ code, user: user(userId) }), context(userId, now))

  it("creates an invite with its audit entry and event", () => {
    const command = createInvite.command.make({ code: "abc", channelId: CarriedId.ChannelId.make("101"), maxAge: 60, maxUses: 3, temporary: false, unique: true })
    const decision = Effect.runSync(createInvite.decide(base, command, context("1")))
    assert.strictEqual(decision.reply.code, "abc")
    assert.strictEqual(decision.reply.expires_at, "2026-03-01T00:01:00.000Z")
    assert.deepStrictEqual(decision.audit.map((a) => [a.actionType, a.targetId]), [[40, "abc"]])
    assert.deepStrictEqual(decision.events.map((e) => e.type), ["INVITE_CREATE"])
    const other = createInvite.command.make({ ...command, channelId: CarriedId.ChannelId.make("999") })
    assert.include(failure(createInvite.decide(base, other, context("1"))), "UNKNOWN_CHANNEL")
    assert.include(failure(createInvite.decide(base, command, context("7"))), "MISSING_ACCESS")
  })

  it("refuses the 1001st live invite of a guild, counting only live ones", () => {
    let full = base
    for (let i = 0; i < 1000; i++) full = withInvite(full, invite(`c${i}`, { maxAge: 0 }))
    const command = createInvite.command.make({ code: "new", channelId: CarriedId.ChannelId.make("101"), maxAge: 0, maxUses: 0, temporary: false, unique: true })
    assert.include(failure(createInvite.decide(full, command, context("1"))), "MAX_INVITES")
    const oneDead = withInvite(full, invite("c0", { maxUses: 1, uses: 1 }))
    assert.strictEqual(Effect.runSync(createInvite.decide(oneDead, command, context("1"))).next.invites.size, 1000)
  })

  it("admits through an invite, counting the use and recording how", () => {
    const s = withInvite(base, invite("abc", { maxUses: 1 }))
    const decision = Effect.runSync(join(s, "abc", "2"))
    assert.isTrue(decision.next.members.has("2"))
    assert.strictEqual(decision.next.invites.get("abc")?.uses, 1)
    assert.deepStrictEqual(decision.next.memberProfiles.get("2"), {
      bio: null,
      pronouns: null,
      joinSourceType: 1,
      sourceInviteCode: "abc",
      inviterId: "1",
      temporary: false
    })
    assert.deepStrictEqual(decision.events.map((e) => e.type), ["GUILD_MEMBER_ADD"])
    assert.include(failure(join(decision.next, "abc", "3")), "UNKNOWN_INVITE")
  })

  it("refuses a banned user until the ban expires, and any join when invites are off", () => {
    const banned = withBan(withInvite(base, invite("abc", { maxAge: 0 })), {
      user: user("2"),
      reason: null,
      moderator_id: "1",
      banned_at: new Date(T0).toISOString(),
      expires_at: "2026-03-01T00:00:02.000Z"
    })
    assert.include(failure(join(banned, "abc", "2")), "USER_BANNED_FROM_GUILD")
    const later = Effect.runSync(join(banned, "abc", "2", T0 + 2_000))
    assert.isTrue(later.next.members.has("2"))
    assert.isFalse(later.next.bans.has("2"))
    const off: GuildState = { ...banned, guild: { ...banned.guild, features: ["INVITES_DISABLED"] } }
    assert.include(failure(join(off, "abc", "3")), "INVITES_DISABLED")
  })

  it("deletes an invite for MANAGE_GUILD only, with its audit entry", () => {
    const s = withInvite(base, invite("abc"))
    const decision = Effect.runSync(deleteInvite.decide(s, deleteInvite.command.make({ code: "abc" }), context("1")))
    assert.isFalse(decision.next.invites.has("abc"))
    assert.deepStrictEqual(decision.audit.map((a) => a.actionType), [42])
    const member: GuildState = {
      ...s,
      members: SharedMap.from([...s.members, ["2", { user: user("2"), roles: [], joined_at: "2026-01-02T00:00:00.000Z", mute: false, deaf: false }]])
    }
    assert.include(failure(deleteInvite.decide(member, deleteInvite.command.make({ code: "abc" }), context("2"))), "MISSING_PERMISSIONS")
  })
})
