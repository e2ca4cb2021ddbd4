import { assert, describe, it } from "@effect/vitest"
import { memberView } from "../../../shards/guild/members/GuildMember.ts"
import { createGuild } from "../../../shards/guild/State.ts"

const user = (id: string) => ({ id, username: `u${id}`, discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 })

describe("member view", () => {
  it("shows a loaded member's every field, in the response's order", () => {
    const member = {
      user: user("2"),
      nick: "n",
      avatar: null,
      banner: null,
      accent_color: 5,
      roles: ["10"],
      joined_at: "2026-01-02T00:00:00.000Z",
      mute: false,
      deaf: true,
      communication_disabled_until: null,
      profile_flags: null
    }
    assert.strictEqual(JSON.stringify(memberView(member)), JSON.stringify(member))
  })

  it("leaves out what a new guild's owner does not have, rather than showing it as null", () => {
    const state = createGuild({ guildId: "100", channelId: "101", owner: user("1"), name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })
    const owner = state.members.get("1")
    assert.isDefined(owner)
    if (owner === undefined) return
    assert.deepStrictEqual(Object.keys(memberView(owner)), ["user", "nick", "roles", "joined_at", "mute", "deaf"])
    assert.deepStrictEqual(
      Object.keys(memberView({ ...owner, avatar: "a", profile_flags: 1 })),
      ["user", "nick", "avatar", "roles", "joined_at", "mute", "deaf", "profile_flags"]
    )
  })
})
