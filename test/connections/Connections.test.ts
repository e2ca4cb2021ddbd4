import { assert, expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { dataOf, identified, nextOfType } from "../gateway/Client.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { createGuild } from "../support/Cast.ts"
import { FakeDns } from "../support/FakeDns.ts"
import { FakeSocialInstance } from "../support/FakeSocialInstance.ts"
import { queryAt } from "../support/Postgres.ts"
import { connect, connectionsApi, list, newDomain, newHandle, publish, request, start, verify } from "./Support.ts"

const idsOf = Schema.decodeUnknownSync(Schema.Array(Schema.Struct({ id: Schema.String })))
const shownOf = Schema.decodeUnknownSync(Schema.Struct({ connected_accounts: Schema.Array(Schema.Struct({ id: Schema.String })) }))

layer(connectionsApi, { timeout: 180_000, excludeTestServices: true })("account connections over HTTP", (it) => {
  it.effect("a domain: started, refused until its TXT record is there, created, verified again as the record comes and goes", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const dns = yield* FakeDns
      const me = yield* api.register()
      const domain = newDomain()

      const started = yield* start(me.token, "domain", domain.toUpperCase() + ".", { visibility_flags: 3 })
      assert.strictEqual(started.status, 201, JSON.stringify(started.body))
      expect(started.body).toMatchObject({ id: domain, type: "domain" })
      const proof = field(started.body, "token")
      const initiation = field(started.body, "initiation_token")
      assert.match(proof, /^guildhall-verification=[0-9a-f]{32}$/)
      assert.include(field(started.body, "instructions"), proof)
      assert.include(field(started.body, "instructions"), `_guildhall.${domain}`)

      // Nothing published yet: refused, and the initiation token stays good for another try.
      expectError(yield* verify(me.token, initiation), 400, "CONNECTION_VERIFICATION_FAILED")
      dns.setTxt(`_guildhall.${domain}`, ["guildhall-verification=somebody-elses"])
      expectError(yield* verify(me.token, initiation), 400, "CONNECTION_VERIFICATION_FAILED")
      yield* publish("domain", domain, proof)
      const created = yield* verify(me.token, initiation)
      assert.strictEqual(created.status, 201, JSON.stringify(created.body))
      expect(created.body).toEqual({ id: field(created.body, "id"), type: "domain", name: domain, verified: true, visibility_flags: 3, sort_order: 0 })
      const id = field(created.body, "id")

      // The token is used up, and the same domain cannot be connected twice.
      expectError(yield* verify(me.token, initiation), 400, "CONNECTION_INITIATION_TOKEN_INVALID")
      expectError(yield* start(me.token, "domain", domain), 400, "CONNECTION_ALREADY_EXISTS")
      expect((yield* list(me.token)).body).toEqual([created.body])

      // Verifying again looks for the record again.
      const again = yield* request("POST", `/users/@me/connections/domain/${id}/verify`, me.token)
      assert.strictEqual(again.status, 200, JSON.stringify(again.body))
      expect(again.body).toMatchObject({ id, verified: true })
      dns.setTxt(`_guildhall.${domain}`, [])
      expect((yield* request("POST", `/users/@me/connections/domain/${id}/verify`, me.token)).body).toMatchObject({ id, verified: false })
      expect((yield* list(me.token)).body).toMatchObject([{ id, verified: false }])
      // The record may sit at the domain itself too.
      dns.setTxt(domain, [proof])
      expect((yield* request("POST", `/users/@me/connections/domain/${id}/verify`, me.token)).body).toMatchObject({ id, verified: true })
    }))

  it.effect("a social account: its profile's description holds the token; the sessions hear USER_CONNECTIONS_UPDATE", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const social = yield* FakeSocialInstance
      const me = yield* api.register()
      const { client } = yield* identified(me.token)
      const handle = newHandle()

      const authorize = yield* request("POST", "/users/@me/connections/social/authorize", me.token, { handle: `@${handle}` })
      assert.strictEqual(authorize.status, 200, JSON.stringify(authorize.body))
      expect(authorize.body).toEqual({ authorize_url: `${social.url}/profile/${handle}` })

      const started = yield* start(me.token, "social", `@${handle.toUpperCase()}`)
      assert.strictEqual(started.status, 201, JSON.stringify(started.body))
      expect(started.body).toMatchObject({ id: handle, type: "social" })
      const proof = field(started.body, "token")
      const initiation = field(started.body, "initiation_token")

      // An unknown profile, then one without the token, are no proof.
      expectError(yield* verify(me.token, initiation), 400, "CONNECTION_VERIFICATION_FAILED")
      social.setDescription(handle, "just a bio")
      expectError(yield* verify(me.token, initiation), 400, "CONNECTION_VERIFICATION_FAILED")
      assert.includeMembers([...social.asked], [handle])

      social.setDescription(handle, `I am me. ${proof}`)
      const created = yield* verify(me.token, initiation, { visibility_flags: 2 })
      assert.strictEqual(created.status, 201, JSON.stringify(created.body))
      expect(created.body).toMatchObject({ type: "social", name: handle, verified: true, visibility_flags: 2, sort_order: 0 })
      const event = dataOf(yield* nextOfType(client, "USER_CONNECTIONS_UPDATE"))
      expect(event).toEqual({ connections: [created.body] })

      // Removing the token from the profile and verifying again unverifies it.
      social.setDescription(handle, "just a bio")
      const id = field(created.body, "id")
      expect((yield* request("POST", `/users/@me/connections/social/${id}/verify`, me.token)).body).toMatchObject({ verified: false })
      expect(dataOf(yield* nextOfType(client, "USER_CONNECTIONS_UPDATE"))).toMatchObject({ connections: [{ id, verified: false }] })
    }))

  it.effect("listing in sort order, updating, reordering and deleting; another user's connection is unknown", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const other = yield* api.register()
      const a = yield* connect(me.token, "domain", newDomain())
      const b = yield* connect(me.token, "social", newHandle())
      const c = yield* connect(me.token, "domain", newDomain())
      const ids = () => Effect.map(list(me.token), (reply) => idsOf(reply.body).map((x) => x.id))
      assert.deepStrictEqual(yield* ids(), [a.id, b.id, c.id])

      const patched = yield* request("PATCH", `/users/@me/connections/domain/${a.id}`, me.token, { sort_order: 10, visibility_flags: 0 })
      assert.strictEqual(patched.status, 204, JSON.stringify(patched.body))
      assert.deepStrictEqual(yield* ids(), [b.id, c.id, a.id])
      expect((yield* list(me.token)).body).toContainEqual({
        id: a.id,
        type: "domain",
        name: field(a.body, "name"),
        verified: true,
        sort_order: 10,
        visibility_flags: 0
      })
      assert.strictEqual((yield* request("PATCH", `/users/@me/connections/domain/${a.id}`, me.token, {})).status, 204)

      const reordered = yield* request("PATCH", "/users/@me/connections/reorder", me.token, { connection_ids: [c.id, a.id] })
      assert.strictEqual(reordered.status, 204, JSON.stringify(reordered.body))
      assert.deepStrictEqual(yield* ids(), [c.id, a.id, b.id])
      expect((yield* list(me.token)).body).toMatchObject([{ sort_order: 0 }, { sort_order: 1 }, { sort_order: 2 }])

      // Another user's ids, and an id under the other type, are not found.
      for (const [method, path, body] of [
        ["PATCH", `/users/@me/connections/domain/${a.id}`, { sort_order: 1 }],
        ["DELETE", `/users/@me/connections/domain/${a.id}`, undefined],
        ["POST", `/users/@me/connections/domain/${a.id}/verify`, undefined],
        ["PATCH", "/users/@me/connections/reorder", { connection_ids: [a.id] }]
      ] as const) {
        expectError(yield* request(method, path, other.token, body), 404, "CONNECTION_NOT_FOUND")
      }
      expectError(yield* request("DELETE", `/users/@me/connections/social/${a.id}`, me.token), 404, "CONNECTION_NOT_FOUND")
      expectError(yield* request("PATCH", `/users/@me/connections/social/${c.id}`, me.token, { sort_order: 1 }), 404, "CONNECTION_NOT_FOUND")

      const removed = yield* request("DELETE", `/users/@me/connections/social/${b.id}`, me.token)
      assert.strictEqual(removed.status, 204, JSON.stringify(removed.body))
      assert.deepStrictEqual(yield* ids(), [c.id, a.id])
      expectError(yield* request("DELETE", `/users/@me/connections/social/${b.id}`, me.token), 404, "CONNECTION_NOT_FOUND")
      expect((yield* list(other.token)).body).toEqual([])
    }))

  it.effect("profiles show verified connections by their visibility flags; the owner sees all of them", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const friend = yield* api.register()
      const member = yield* api.register()
      const stranger = yield* api.register()
      yield* queryAt(api.databaseUrl, "INSERT INTO relationships (user_id, target_id, type) VALUES ($1, $2, 1), ($2, $1, 1)", [
        owner.userId,
        friend.userId
      ])
      const { guildId } = yield* createGuild(owner.token)
      yield* queryAt(api.databaseUrl, "INSERT INTO guild_members (guild_id, user_id) VALUES ($1, $2)", [guildId, member.userId])

      const everyone = yield* connect(owner.token, "domain", newDomain(), 1)
      const friends = yield* connect(owner.token, "social", newHandle(), 2)
      const guilds = yield* connect(owner.token, "domain", newDomain(), 4)
      const nobody = yield* connect(owner.token, "domain", newDomain(), 0)
      const lapsedName = newDomain()
      const lapsed = yield* connect(owner.token, "domain", lapsedName, 7)
      ;(yield* FakeDns).setTxt(`_guildhall.${lapsedName}`, [])
      expect((yield* request("POST", `/users/@me/connections/domain/${lapsed.id}/verify`, owner.token)).body).toMatchObject({ verified: false })

      const shown = (token: string) =>
        Effect.gen(function*() {
          const reply = yield* request("GET", `/users/${owner.userId}/profile`, token)
          assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
          return shownOf(reply.body).connected_accounts.map((c) => c.id)
        })
      assert.deepStrictEqual(yield* shown(owner.token), [everyone.id, friends.id, guilds.id, nobody.id])
      assert.deepStrictEqual(yield* shown(friend.token), [everyone.id, friends.id])
      assert.deepStrictEqual(yield* shown(member.token), [everyone.id, guilds.id])
      expectError(yield* request("GET", `/users/${owner.userId}/profile`, stranger.token), 403, "MISSING_ACCESS")
      const whole = yield* request("GET", `/users/${owner.userId}/profile`, friend.token)
      expect(whole.body).toMatchObject({ connected_accounts: [everyone.body, friends.body] })
    }))

  it.effect("at most 20 connections; an expired initiation token is refused", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const pending = yield* start(me.token, "domain", newDomain())
      for (let i = 0; i < 20; i++) yield* connect(me.token, "domain", newDomain())
      expectError(yield* start(me.token, "domain", newDomain()), 400, "CONNECTION_LIMIT_REACHED")
      // One started before the limit was reached is refused when it would pass it.
      yield* publish("domain", field(pending.body, "id"), field(pending.body, "token"))
      expectError(yield* verify(me.token, field(pending.body, "initiation_token")), 400, "CONNECTION_LIMIT_REACHED")

      const other = yield* api.register()
      const late = yield* start(other.token, "domain", newDomain())
      yield* publish("domain", field(late.body, "id"), field(late.body, "token"))
      yield* queryAt(api.databaseUrl, "UPDATE connection_initiations SET expires_at = now() - interval '1 second' WHERE user_id = $1", [
        other.userId
      ])
      expectError(yield* verify(other.token, field(late.body, "initiation_token")), 400, "CONNECTION_INITIATION_TOKEN_INVALID")
    }))
})
