import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { User } from "../../../shards/user/Protocol.ts"
import type { WriteCommand } from "../../../shards/user/operations/index.ts"
import { eventually } from "../../support/Cluster.ts"
import { queryAt } from "../../support/Postgres.ts"
import { ActorCluster, DatabaseUrl } from "../../support/ActorCluster.ts"

const OUTGOING = 4
const INCOMING = 3
const FRIEND = 1

/** A partial user as a relationship change hands it to the actor. */
const partial = (id: string, username: string) => ({
  id,
  username,
  discriminator: "0001",
  global_name: null,
  avatar: null,
  avatar_color: null,
  bot: false,
  flags: 0
})

/** Nobody to the asker yet, as the caller read it from the other actor. */
const strangers = { type: null, friendsAndRequests: 0 }

/**
 * The two halves of a relationship change, driven into the user actors
 * directly: the acting user's write records the other side's part, the other
 * user's write (under the derived operation id) applies it and forgets it.
 */
layer(ActorCluster, { timeout: 120_000, excludeTestServices: true })("relationships in the user actors", (it) => {
  const setup = (ids: ReadonlyArray<readonly [string, string]>) =>
    Effect.gen(function*() {
      const url = yield* DatabaseUrl
      for (const [id, name] of ids) {
        yield* queryAt(url, "INSERT INTO users (id, username, discriminator) VALUES ($1, $2, '0001')", [id, name])
      }
      const users = yield* User.client
      const write = (userId: string, operationId: string, command: typeof WriteCommand.Type) =>
        users(userId).Write({ operationId, actorId: userId, now: Date.now(), command })
      /** `userId`'s relationships as `[other user, type]` pairs, from their actor. */
      const pairs = (userId: string) =>
        Effect.map(users(userId).Read({ viewerId: userId, query: { _tag: "ListRelationships" } }), (json) => {
          const rows: ReadonlyArray<{ id: string; type: number }> = JSON.parse(json)
          return rows.map((r) => [r.id, r.type])
        })
      const intents = (userId: string) =>
        queryAt(url, "SELECT operation_id, peer_id::text AS peer_id, change::text AS change FROM relationship_intents WHERE user_id = $1 ORDER BY seq", [userId])
      return { url, write, pairs, intents }
    })

  it.effect("a change delivered again under its operation ids acts once, even after a later change undid it", () =>
    Effect.gen(function*() {
      const { url, write, pairs, intents } = yield* setup([["101", "alice"], ["102", "bob"]])
      const request = { _tag: "RequestFriend", targetId: "102", user: partial("102", "bob"), theirs: strangers, force: false, reachable: true } as const
      const askedBob = { _tag: "PeerRelationshipChanged", otherId: "101", change: "request", user: partial("101", "alice") } as const

      const asked = yield* write("101", "7001", request)
      expect(JSON.parse(asked)).toMatchObject({ id: "102", type: OUTGOING, user: { id: "102" } })
      // Alice's side recorded Bob's part with itself, keyed by the operation id Bob's write takes.
      const recorded = yield* intents("101")
      assert.deepStrictEqual(recorded.map((r) => [r.operation_id, r.peer_id, JSON.parse(String(r.change))]), [
        ["7001:peer", "102", { otherId: "101", change: "request", user: partial("101", "alice") }]
      ])
      assert.deepStrictEqual(yield* pairs("102"), [])
      yield* write("102", "7001:peer", askedBob)
      assert.deepStrictEqual(yield* pairs("101"), [["102", OUTGOING]])
      assert.deepStrictEqual(yield* pairs("102"), [["101", INCOMING]])
      assert.deepStrictEqual(yield* intents("101"), [])

      // Alice withdraws: both sides again.
      yield* write("101", "7002", { _tag: "RemoveRelationship", targetId: "102" })
      yield* write("102", "7002:peer", { ...askedBob, change: "withdraw" })
      assert.deepStrictEqual(yield* pairs("101"), [])
      assert.deepStrictEqual(yield* pairs("102"), [])

      // The engine answers a resent message from its own storage. Forget it there, as when a
      // runner dies after an actor committed but before the reply was saved: the actors must
      // then recognise the operations themselves.
      yield* queryAt(url, "DELETE FROM cluster_replies")
      yield* queryAt(url, "DELETE FROM cluster_messages")
      const again = yield* write("101", "7001", request)
      assert.deepStrictEqual(JSON.parse(again), JSON.parse(asked))
      yield* write("102", "7001:peer", askedBob)
      assert.deepStrictEqual(yield* pairs("101"), [])
      assert.deepStrictEqual(yield* pairs("102"), [])
      assert.deepStrictEqual(yield* intents("101"), [])
      const stored = yield* queryAt(url, "SELECT count(*)::int AS n FROM relationships WHERE user_id IN (101, 102)")
      assert.deepStrictEqual(stored, [{ n: 0 }])
      const operations = yield* queryAt(url, "SELECT operation_id FROM actor_operations WHERE operation_id LIKE '700%' ORDER BY operation_id")
      assert.deepStrictEqual(operations.map((r) => r.operation_id), ["7001", "7001:peer", "7002", "7002:peer"])
    }))

  it.effect("requests that cross (each asker read the other as a stranger) end in a friendship on both sides", () =>
    Effect.gen(function*() {
      const { url, write, pairs } = yield* setup([["201", "dave"], ["202", "erin"]])
      yield* write("201", "7201", { _tag: "RequestFriend", targetId: "202", user: partial("202", "erin"), theirs: strangers, force: false, reachable: true })
      yield* write("202", "7301", { _tag: "RequestFriend", targetId: "201", user: partial("201", "dave"), theirs: strangers, force: false, reachable: true })
      assert.deepStrictEqual(yield* pairs("201"), [["202", OUTGOING]])
      assert.deepStrictEqual(yield* pairs("202"), [["201", OUTGOING]])
      yield* write("202", "7201:peer", { _tag: "PeerRelationshipChanged", otherId: "201", change: "request", user: partial("201", "dave") })
      yield* write("201", "7301:peer", { _tag: "PeerRelationshipChanged", otherId: "202", change: "request", user: partial("202", "erin") })
      assert.deepStrictEqual(yield* pairs("201"), [["202", FRIEND]])
      assert.deepStrictEqual(yield* pairs("202"), [["201", FRIEND]])
      const stored = yield* queryAt(url, "SELECT type FROM relationships WHERE user_id IN (201, 202)")
      assert.deepStrictEqual(stored, [{ type: FRIEND }, { type: FRIEND }])
    }))

  it.effect("changes whose other side nobody delivered are finished by the sweep, in the order they were made", () =>
    Effect.gen(function*() {
      const { url, write, pairs, intents } = yield* setup([["301", "fay"], ["302", "gus"]])
      // Fay asks Gus and withdraws, and both deliveries are lost. Applied the other way round,
      // Gus would be left with a request that no longer exists.
      yield* write("301", "7401", { _tag: "RequestFriend", targetId: "302", user: partial("302", "gus"), theirs: strangers, force: false, reachable: true })
      yield* write("301", "7402", { _tag: "RemoveRelationship", targetId: "302" })
      assert.deepStrictEqual((yield* intents("301")).map((r) => r.operation_id), ["7401:peer", "7402:peer"])
      yield* eventually("the sweep delivers both", intents("301"), (rows) => rows.length === 0, 30)
      const applied = yield* queryAt(url, "SELECT operation_id FROM actor_operations WHERE entity_id = '302' ORDER BY operation_id")
      assert.deepStrictEqual(applied.map((r) => r.operation_id), ["7401:peer", "7402:peer"])
      assert.deepStrictEqual(yield* pairs("302"), [])
      assert.deepStrictEqual(yield* pairs("301"), [])
    }))
})
