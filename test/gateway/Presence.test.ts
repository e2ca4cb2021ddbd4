import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { guildOfTwo } from "../invites/Fixtures.ts"
import { TestApi } from "../support/Api.ts"
import { connect, dataOf, gatewayUrl, identified, nextMatching, nextOfType } from "./Client.ts"

const statusOf = (d: unknown) => (typeof d === "object" && d !== null && "status" in d ? d.status : undefined)

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("presences", (it) => {
  it.effect("op 3 reaches the guild's members and the user's friends; invisible shows offline; READY and GUILD_CREATE carry presences", () =>
    Effect.gen(function*() {
      const { api, owner, member, guildId } = yield* guildOfTwo
      const friend = yield* api.register()
      assert.strictEqual((yield* api.request("POST", `/users/@me/relationships/${member.userId}`, { token: friend.token })).status, 200)
      assert.strictEqual((yield* api.request("PUT", `/users/@me/relationships/${friend.userId}`, { token: member.token, body: {} })).status, 200)

      const ownerSide = (yield* identified(owner.token)).client
      yield* nextOfType(ownerSide, "GUILD_CREATE")
      const memberSide = (yield* identified(member.token)).client
      const online = yield* nextOfType(ownerSide, "PRESENCE_UPDATE")
      expect(online.d).toMatchObject({ user: { id: member.userId }, guild_id: guildId, status: "online" })

      // The friend's READY lists the member as online; the friend shares no guild with them.
      const { client: friendSide, ready } = yield* identified(friend.token)
      expect(ready.presences).toEqual([expect.objectContaining({ user: { id: member.userId }, status: "online" })])

      memberSide.send({ op: 3, d: { since: null, activities: [{ name: "chess", type: 0 }], status: "dnd", afk: false } })
      const dnd = yield* nextOfType(ownerSide, "PRESENCE_UPDATE")
      expect(dnd.d).toMatchObject({ user: { id: member.userId }, status: "dnd", activities: [{ name: "chess" }] })
      // The member's "online" may still be on its way to the friend's new session: dnd is what counts.
      const toFriend = yield* nextMatching(friendSide, "PRESENCE_UPDATE", (d) => typeof d === "object" && d !== null && "status" in d && d.status === "dnd")
      expect(toFriend.d).toMatchObject({ user: { id: member.userId }, status: "dnd" })
      expect(toFriend.d).not.toHaveProperty("guild_id")

      const stats = yield* api.request("GET", "/admin/gateway/stats", { token: `Admin ${api.adminKey}` })
      expect(stats.body).toMatchObject({ sessions: expect.any(Number), presences: expect.any(Number) })
      const counts = stats.body as { sessions: number; presences: number }
      expect(counts.sessions).toBeGreaterThanOrEqual(3)
      expect(counts.presences).toBeGreaterThanOrEqual(3)

      memberSide.send({ op: 3, d: { since: null, activities: [], status: "invisible", afk: false } })
      const hidden = yield* nextOfType(ownerSide, "PRESENCE_UPDATE")
      expect(hidden.d).toMatchObject({ user: { id: member.userId }, status: "offline", activities: [] })
      assert.strictEqual(statusOf((yield* nextOfType(friendSide, "PRESENCE_UPDATE")).d), "offline")
      // A new session of the owner: GUILD_CREATE lists the owner's guildmates who show as online, and not the invisible one.
      const second = (yield* identified(owner.token)).client
      const create = dataOf(yield* nextOfType(second, "GUILD_CREATE"))
      expect(create.presences ?? []).not.toContainEqual(expect.objectContaining({ user: { id: member.userId } }))

      memberSide.send({ op: 3, d: { since: null, activities: [], status: "idle", afk: true } })
      assert.strictEqual(statusOf((yield* nextOfType(ownerSide, "PRESENCE_UPDATE")).d), "idle")
      assert.strictEqual(statusOf((yield* nextOfType(friendSide, "PRESENCE_UPDATE")).d), "idle")
      const third = (yield* identified(owner.token)).client
      const again = dataOf(yield* nextOfType(third, "GUILD_CREATE"))
      expect(again.presences).toContainEqual(expect.objectContaining({ user: { id: member.userId }, status: "idle" }))

      // The member's only session ends: they go offline for everyone.
      memberSide.close(1000)
      const gone = yield* nextOfType(ownerSide, "PRESENCE_UPDATE")
      expect(gone.d).toMatchObject({ user: { id: member.userId }, status: "offline" })
      assert.strictEqual(statusOf((yield* nextOfType(friendSide, "PRESENCE_UPDATE")).d), "offline")
    }))

  it.effect("a bad op 3 closes with 4002; op 3 before IDENTIFY with 4003", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const { client } = yield* identified(token)
      client.send({ op: 3, d: { since: null, activities: [], status: "asleep", afk: false } })
      assert.strictEqual((yield* client.closed).code, 4002)
      const early = yield* connect(yield* gatewayUrl(token))
      yield* early.next
      early.send({ op: 3, d: { status: "online" } })
      assert.strictEqual((yield* early.closed).code, 4003)
    }))
})
