import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { requirePermission } from "../../../shards/guild/Access.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import { createGuild, type GuildState } from "../../../shards/guild/State.ts"
import { isTimedOut, permissionsAt, TIMED_OUT_ALLOWED } from "../../../shards/guild/members/Timeouts.ts"
import { SharedMap } from "../../../shards/guild/SharedMap.ts"

const user = (id: string) => ({ id, username: `u${id}`, discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 })
const base = createGuild({ guildId: "100", channelId: "101", owner: user("1"), name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })
const now = Date.parse("2026-06-01T00:00:00Z")

const withMember = (state: GuildState, id: string, until: string | null, roles: ReadonlyArray<string> = []): GuildState => ({
  ...state,
  members: SharedMap.from([...state.members, [id, {
    user: user(id), roles, joined_at: "2026-01-02T00:00:00.000Z", mute: false, deaf: false, communication_disabled_until: until
  }]])
})
const withRole = (state: GuildState, id: string, permissions: bigint): GuildState => ({
  ...state,
  roles: new Map([...state.roles, [id, { id, name: id, color: 0, position: 1, permissions: permissions.toString(), hoist: false, mentionable: false }]])
})

const allowed = (state: GuildState, userId: string, wanted: bigint) =>
  Exit.isSuccess(Effect.runSyncExit(requirePermission(state, userId, wanted, now)))

describe("timeouts", () => {
  const later = new Date(now + 60_000).toISOString()
  const earlier = new Date(now - 60_000).toISOString()
  const s = withRole(withMember(withMember(withMember(base, "2", later), "3", earlier), "4", later, ["200"]), "200", Permission.ADMINISTRATOR)

  it("binds a member until the timeout passes", () => {
    assert.isTrue(isTimedOut(s, "2", now))
    assert.isFalse(isTimedOut(s, "3", now))
    assert.isFalse(isTimedOut(s, "2", Date.parse(later)))
  })

  it("leaves a timed-out member only VIEW_CHANNEL and READ_MESSAGE_HISTORY", () => {
    assert.strictEqual(permissionsAt(s, "2", now), TIMED_OUT_ALLOWED)
    assert.isTrue(allowed(s, "2", Permission.VIEW_CHANNEL | Permission.READ_MESSAGE_HISTORY))
    assert.isFalse(allowed(s, "2", Permission.SEND_MESSAGES))
    assert.isFalse(allowed(s, "2", Permission.CHANGE_NICKNAME))
    // The same member once the timeout is over.
    assert.isTrue(allowed(s, "3", Permission.SEND_MESSAGES | Permission.CHANGE_NICKNAME))
  })

  it("does not bind the owner or administrators", () => {
    const ownerTimedOut: GuildState = {
      ...s,
      members: SharedMap.from([...s.members, ["1", { ...user1Member(s), communication_disabled_until: later }]])
    }
    assert.isTrue(allowed(ownerTimedOut, "1", Permission.MANAGE_GUILD))
    assert.isTrue(allowed(s, "4", Permission.MANAGE_GUILD | Permission.SEND_MESSAGES))
  })

  it("still answers MISSING_ACCESS to strangers", () => {
    const exit = Effect.runSyncExit(requirePermission(s, "9", Permission.VIEW_CHANNEL, now))
    assert.isTrue(Exit.isFailure(exit))
    assert.include(JSON.stringify(exit), "MISSING_ACCESS")
  })
})

function user1Member(state: GuildState) {
  const owner = state.members.get("1")
  if (owner === undefined) throw new Error("the owner is a member")
  return owner
}
