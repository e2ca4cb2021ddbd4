import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { identified, nextOfType } from "../gateway/Client.ts"
import { auditEntries } from "../support/Audit.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { createGuild } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"
import { createInvite, eventuallyGuilds } from "./Fixtures.ts"

/** A new guild of `ownerToken` and an invite into it, temporary or not. */
const guildWithInvite = (ownerToken: string, temporary: boolean) =>
  Effect.gen(function*() {
    const { guildId, channelId } = yield* createGuild(ownerToken)
    const code = yield* createInvite(ownerToken, channelId, { temporary })
    return { guildId, code }
  })

const join = (token: string, code: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const joined = yield* api.request("POST", `/invites/${code}`, { token })
    assert.strictEqual(joined.status, 200, JSON.stringify(joined.body))
  })

/** The member's row as Postgres holds it, if any. */
const memberRow = (guildId: string, userId: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const rows = yield* queryAt(api.databaseUrl, "SELECT temporary FROM guild_members WHERE guild_id = $1 AND user_id = $2", [
      guildId,
      userId
    ])
    return rows[0]
  })

/** Polls GET member (as `viewerToken`) until it answers 404; the last status seen. */
const eventuallyGone = (viewerToken: string, guildId: string, userId: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    let status = 0
    for (let attempt = 0; attempt < 50; attempt++) {
      status = (yield* api.request("GET", `/guilds/${guildId}/members/${userId}`, { token: viewerToken })).status
      if (status === 404) return status
      yield* Effect.sleep("100 millis")
    }
    return status
  })

/** Connects a gateway session of `token` and closes it cleanly (the user goes offline). */
const connectAndLeave = (token: string) =>
  Effect.scoped(Effect.gen(function*() {
    const { client } = yield* identified(token)
    client.close(1000)
    yield* client.closed
  }))

/** An owner's guild that a guest joined through a temporary invite. */
const temporaryGuest = Effect.gen(function*() {
  const api = yield* TestApi
  const owner = yield* api.register()
  const guest = yield* api.register()
  const { guildId, code } = yield* guildWithInvite(owner.token, true)
  yield* join(guest.token, code)
  return { owner, guest, guildId, code }
})

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("temporary membership", (it) => {
  it.effect("a member who joined through a temporary invite is removed when their gateway session closes", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guest, guildId, code } = yield* temporaryGuest
      expect(yield* memberRow(guildId, guest.userId)).toEqual({ temporary: true })
      // Joined but never connected: still a member.
      assert.strictEqual((yield* api.request("GET", `/guilds/${guildId}/members/${guest.userId}`, { token: owner.token })).status, 200)

      const ownerSide = (yield* identified(owner.token)).client
      yield* nextOfType(ownerSide, "GUILD_CREATE")
      yield* connectAndLeave(guest.token)

      assert.strictEqual(yield* eventuallyGone(owner.token, guildId, guest.userId), 404)
      const missing = yield* api.request("GET", `/guilds/${guildId}/members/${guest.userId}`, { token: owner.token })
      expectError(missing, 404, "UNKNOWN_MEMBER")
      assert.isUndefined(yield* memberRow(guildId, guest.userId))
      const removed = yield* nextOfType(ownerSide, "GUILD_MEMBER_REMOVE")
      expect(removed.d).toMatchObject({ guild_id: guildId, user: { id: guest.userId } })
      expect(yield* eventuallyGuilds(guest.token, (ids) => !ids.includes(guildId))).not.toContain(guildId)
      // Not a moderator's kick: nothing in the audit log.
      expect((yield* auditEntries(guildId)).filter((e) => e.action_type === 20)).toEqual([])
      // The invite still works: they may come back, temporarily again.
      yield* join(guest.token, code)
      expect(yield* memberRow(guildId, guest.userId)).toEqual({ temporary: true })
    }))

  it.effect("a role given before the disconnect (by PUT role or PATCH member) keeps the member, even once taken back", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const guest = yield* api.register()
      const byPut = yield* guildWithInvite(owner.token, true)
      const byPatch = yield* guildWithInvite(owner.token, true)
      // The guest is temporary here with no role: their removal shows the disconnect was handled.
      const control = yield* guildWithInvite(owner.token, true)
      for (const { code } of [byPut, byPatch, control]) yield* join(guest.token, code)

      const roleIn = (guildId: string) =>
        Effect.gen(function*() {
          const role = yield* api.request("POST", `/guilds/${guildId}/roles`, { token: owner.token, body: { name: "Regular" } })
          assert.strictEqual(role.status, 200, JSON.stringify(role.body))
          return field(role.body, "id")
        })
      const putRole = yield* roleIn(byPut.guildId)
      const put = yield* api.request("PUT", `/guilds/${byPut.guildId}/members/${guest.userId}/roles/${putRole}`, { token: owner.token })
      assert.strictEqual(put.status, 204, JSON.stringify(put.body))
      // Taken back at once: the membership stays permanent all the same.
      const taken = yield* api.request("DELETE", `/guilds/${byPut.guildId}/members/${guest.userId}/roles/${putRole}`, {
        token: owner.token
      })
      assert.strictEqual(taken.status, 204, JSON.stringify(taken.body))
      const patchRole = yield* roleIn(byPatch.guildId)
      const patched = yield* api.request("PATCH", `/guilds/${byPatch.guildId}/members/${guest.userId}`, {
        token: owner.token,
        body: { roles: [patchRole] }
      })
      assert.strictEqual(patched.status, 200, JSON.stringify(patched.body))
      expect(yield* memberRow(byPut.guildId, guest.userId)).toEqual({ temporary: false })
      expect(yield* memberRow(byPatch.guildId, guest.userId)).toEqual({ temporary: false })

      yield* connectAndLeave(guest.token)
      assert.strictEqual(yield* eventuallyGone(owner.token, control.guildId, guest.userId), 404)
      for (const { guildId } of [byPut, byPatch]) {
        const member = yield* api.request("GET", `/guilds/${guildId}/members/${guest.userId}`, { token: owner.token })
        assert.strictEqual(member.status, 200, JSON.stringify(member.body))
        expect(yield* memberRow(guildId, guest.userId)).toEqual({ temporary: false })
      }
      // Reloaded from Postgres, the flag stays cleared: another disconnect keeps them too.
      const reload = yield* api.request("POST", "/admin/guilds/reload", { token: `Admin ${api.adminKey}`, body: { guild_id: byPut.guildId } })
      assert.strictEqual(reload.status, 200, JSON.stringify(reload.body))
      const again = yield* guildWithInvite(owner.token, true)
      yield* join(guest.token, again.code)
      yield* connectAndLeave(guest.token)
      assert.strictEqual(yield* eventuallyGone(owner.token, again.guildId, guest.userId), 404)
      assert.strictEqual((yield* api.request("GET", `/guilds/${byPut.guildId}/members/${guest.userId}`, { token: owner.token })).status, 200)
    }))

  it.effect("a member who joined through an ordinary invite stays after disconnecting", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const guest = yield* api.register()
      const ordinary = yield* guildWithInvite(owner.token, false)
      const control = yield* guildWithInvite(owner.token, true)
      yield* join(guest.token, ordinary.code)
      yield* join(guest.token, control.code)
      expect(yield* memberRow(ordinary.guildId, guest.userId)).toEqual({ temporary: false })

      yield* connectAndLeave(guest.token)
      assert.strictEqual(yield* eventuallyGone(owner.token, control.guildId, guest.userId), 404)
      const member = yield* api.request("GET", `/guilds/${ordinary.guildId}/members/${guest.userId}`, { token: owner.token })
      assert.strictEqual(member.status, 200, JSON.stringify(member.body))
      expect(yield* memberRow(ordinary.guildId, guest.userId)).toEqual({ temporary: false })
      expect(yield* eventuallyGuilds(guest.token, (ids) => ids.includes(ordinary.guildId))).toContain(ordinary.guildId)
    }))

  it.effect("a member with another session still open is not removed when one closes", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guest, guildId } = yield* temporaryGuest
      const staying = (yield* identified(guest.token)).client
      yield* connectAndLeave(guest.token)
      // Still online through `staying`: the closed session did not make them offline.
      yield* Effect.sleep("500 millis")
      assert.strictEqual((yield* api.request("GET", `/guilds/${guildId}/members/${guest.userId}`, { token: owner.token })).status, 200)
      staying.close(1000)
      assert.strictEqual(yield* eventuallyGone(owner.token, guildId, guest.userId), 404)
    }))
})
