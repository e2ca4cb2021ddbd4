import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { activeBans, banExpiry, isBanActive, isBanned, pruneExpiredBans, withBan } from "../../shards/guild/members/BanRules.ts"
import { banMember, unbanMember } from "../../shards/guild/operations/Bans.ts"
import { Permission } from "../../src/model/Permissions.ts"
import { createGuild, type GuildState } from "../../shards/guild/State.ts"
import { SharedMap } from "../../shards/guild/SharedMap.ts"
import { CarriedId } from "../../src/model/Ids.ts"
import { defaultLimits } from "../../src/model/Limits.ts"

const user = (id: string) => ({ id, username: `u${id}`, discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 })
const T0 = Date.parse("2026-03-01T00:00:00.000Z")
const base = createGuild({ guildId: "100", channelId: "101", owner: user("1"), name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })

const withMember = (state: GuildState, id: string, roles: ReadonlyArray<string> = []): GuildState => ({
  ...state,
  members: SharedMap.from([...state.members, [id, { user: user(id), roles, joined_at: "2026-01-02T00:00:00.000Z", mute: false, deaf: false }]])
})
const withRole = (state: GuildState, id: string, position: number, permissions: bigint): GuildState => ({
  ...state,
  roles: new Map([...state.roles, [id, { id, name: id, color: 0, position, permissions: permissions.toString(), hoist: false, mentionable: false }]])
})
const ban = (id: string, expiresAt: string | null) => ({
  user: user(id),
  reason: null,
  moderator_id: "1",
  banned_at: new Date(T0).toISOString(),
  expires_at: expiresAt
})
const context = (actorId: string, now = T0) => ({ guildId: "100", actorId, operationId: "5000", reason: null, limits: defaultLimits, now })
const banCommand = (id: string, durationSeconds = 0) =>
  banMember.command.make({ target: user(id), reason: "spam", deleteMessageDays: 2, durationSeconds })

describe("ban rules", () => {
  it("makes 0 seconds permanent and a duration an expiry from now", () => {
    assert.strictEqual(banExpiry(T0, 0), null)
    assert.strictEqual(banExpiry(T0, 90), "2026-03-01T00:01:30.000Z")
  })

  it("counts a ban until the instant it expires, a permanent one always", () => {
    const temporary = ban("2", "2026-03-01T00:00:10.000Z")
    assert.isTrue(isBanActive(temporary, T0 + 9_999))
    assert.isFalse(isBanActive(temporary, T0 + 10_000))
    assert.isTrue(isBanActive(ban("3", null), T0 + 10 ** 12))
  })

  it("prunes expired bans only and lists the active ones", () => {
    const s = withBan(withBan(base, ban("2", "2026-03-01T00:00:10.000Z")), ban("3", null))
    const later = T0 + 60_000
    assert.deepStrictEqual(activeBans(s, later).map((b) => b.user.id), ["3"])
    assert.isFalse(isBanned(s, "2", later))
    const pruned = pruneExpiredBans(s, later)
    assert.deepStrictEqual(pruned.expired.map((b) => b.user.id), ["2"])
    assert.deepStrictEqual([...pruned.state.bans.keys()], ["3"])
    assert.strictEqual(pruneExpiredBans(s, T0).state, s)
  })
})

describe("ban decisions", () => {
  it("removes a banned member, records the ban, the audit entry and the events", () => {
    const s = withMember(base, "2")
    const decision = Effect.runSync(banMember.decide(s, banCommand("2", 60), context("1")))
    assert.isFalse(decision.next.members.has("2"))
    assert.deepStrictEqual(decision.next.bans.get("2"), {
      user: user("2"),
      reason: "spam",
      moderator_id: "1",
      banned_at: "2026-03-01T00:00:00.000Z",
      expires_at: "2026-03-01T00:01:00.000Z"
    })
    assert.deepStrictEqual(decision.audit.map((a) => [a.actionType, a.targetId, a.options?.delete_member_days]), [[22, "2", "2"]])
    assert.deepStrictEqual(decision.events.map((e) => e.type), ["GUILD_BAN_ADD", "GUILD_MEMBER_REMOVE"])
  })

  it("bans a user who is not a member without a member event", () => {
    const decision = Effect.runSync(banMember.decide(base, banCommand("9"), context("1")))
    assert.strictEqual(decision.next.bans.get("9")?.expires_at, null)
    assert.deepStrictEqual(decision.events.map((e) => e.type), ["GUILD_BAN_ADD"])
  })

  it("refuses the owner, a member ranked as high, and a member without BAN_MEMBERS", () => {
    const s = withMember(withMember(withMember(withRole(base, "200", 1, Permission.BAN_MEMBERS), "2", ["200"]), "3", ["200"]), "4")
    const code = (state: GuildState, target: string, actor: string) => {
      const exit = Effect.runSyncExit(banMember.decide(state, banCommand(target), context(actor)))
      return Exit.isFailure(exit) ? JSON.stringify(exit.cause) : "succeeded"
    }
    assert.include(code(s, "1", "2"), "MISSING_PERMISSIONS")
    assert.include(code(s, "3", "2"), "MISSING_PERMISSIONS")
    assert.include(code(s, "2", "4"), "MISSING_PERMISSIONS")
    assert.strictEqual(code(s, "4", "2"), "succeeded")
  })

  it("lifts a ban with an audit entry; lifting none changes nothing", () => {
    const s = withBan(base, ban("2", null))
    const lifted = Effect.runSync(unbanMember.decide(s, unbanMember.command.make({ targetId: CarriedId.UserId.make("2") }), context("1")))
    assert.isFalse(lifted.next.bans.has("2"))
    assert.deepStrictEqual(lifted.audit.map((a) => a.actionType), [23])
    assert.deepStrictEqual(lifted.events.map((e) => e.type), ["GUILD_BAN_REMOVE"])
    const none = Effect.runSync(unbanMember.decide(base, unbanMember.command.make({ targetId: CarriedId.UserId.make("2") }), context("1")))
    assert.strictEqual(none.next, base)
    assert.deepStrictEqual(none.audit, [])
  })
})
