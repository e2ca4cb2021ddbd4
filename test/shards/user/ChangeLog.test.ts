import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { User } from "../../../shards/user/Protocol.ts"
import { ActorCluster, DatabaseUrl } from "../../support/ActorCluster.ts"
import { queryAt } from "../../support/Postgres.ts"

/**
 * The account change log as the user actor writes it (shards/user/ChangeLog.ts),
 * driven directly: who acted comes from the write or the Refresh, a write
 * delivered twice logs once, and what is not an identity field is not logged.
 */
layer(ActorCluster, { timeout: 60_000, excludeTestServices: true })("the user actor's change log", (it) => {
  const logOf = (url: string, userId: string) =>
    queryAt(url, "SELECT field, old_value, new_value, actor_id FROM user_change_log WHERE user_id = $1 ORDER BY event_id", [userId])

  it.effect("an operator's write and a Refresh after an outside change are logged under who acted, once", () =>
    Effect.gen(function*() {
      const url = yield* DatabaseUrl
      const userId = "7401"
      yield* queryAt(url, "INSERT INTO users (id, username, discriminator) VALUES ($1, 'before', '0007')", [userId])
      const actor = (yield* User.client)(userId)
      const write = (operationId: string, actorId: string, changes: Record<string, unknown>) =>
        actor.Write({ operationId, actorId, now: Date.now(), command: { _tag: "UpdateAccount", changes } })

      yield* write(`${userId}-1`, "9001", { username: "after", global_name: "Shown", bio: "not logged" })
      // Delivered again by the same operation id: answered from its record, not logged again.
      yield* write(`${userId}-1`, "9001", { username: "after", global_name: "Shown", bio: "not logged" })
      yield* write(`${userId}-2`, userId, { bio: "still not logged" })

      // A flow outside the actor changed the phone, then asks it to read the account again.
      yield* queryAt(url, "UPDATE users SET phone = '+15550001111' WHERE id = $1", [userId])
      yield* actor.Refresh({ actorId: "9002" })
      yield* queryAt(url, "UPDATE users SET email = 'me@example.com' WHERE id = $1", [userId])
      yield* actor.Refresh({})

      expect(yield* logOf(url, userId)).toEqual([
        { field: "fluxer_tag", old_value: "before#0007", new_value: "after#0007", actor_id: "9001" },
        { field: "global_name", old_value: null, new_value: "Shown", actor_id: "9001" },
        { field: "phone", old_value: null, new_value: "+15550001111", actor_id: "9002" },
        { field: "email", old_value: null, new_value: "me@example.com", actor_id: userId }
      ])
      // Nothing changed: a Refresh logs nothing.
      yield* actor.Refresh({})
      assert.strictEqual((yield* logOf(url, userId)).length, 4)
    }))
})
