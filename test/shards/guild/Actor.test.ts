import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { WriteCommand } from "../../../shards/guild/operations/index.ts"
import { Guild } from "../../../shards/guild/Protocol.ts"
import { queryAt } from "../../support/Postgres.ts"
import { ActorCluster, DatabaseUrl, testOwner as owner } from "../../support/ActorCluster.ts"
import { CarriedId } from "../../../src/model/Ids.ts"

layer(ActorCluster, { timeout: 120_000, excludeTestServices: true })("guild actor", (it) => {
  it.effect("a write delivered again answers its first result and does not act twice", () =>
    Effect.gen(function*() {
      const url = yield* DatabaseUrl
      yield* queryAt(url, "INSERT INTO users (id, username, discriminator) VALUES (1, 'owner', '0001')")
      const guild = (yield* Guild.client)("500")
      const created = yield* guild.Create({ operationId: "create-500", channelId: "501", owner, name: "First", icon: null })
      const again = yield* guild.Create({ operationId: "create-500", channelId: "501", owner, name: "First", icon: null })
      assert.deepStrictEqual(again, created)

      const rename = (name: string) =>
        guild.Write({ operationId: "9001", actorId: "1", reason: "tidying", now: Date.now(), command: { _tag: "UpdateGuild", patch: { name } } })
      const first = yield* rename("Renamed once")
      // The engine answers a resent message from its own storage. Forget it there, as when a
      // runner dies after the actor committed but before the reply was saved: the actor itself
      // must then recognise the operation. Another body proves the stored result is answered.
      yield* queryAt(url, "DELETE FROM cluster_replies")
      yield* queryAt(url, "DELETE FROM cluster_messages")
      const replay = yield* rename("Renamed twice")
      assert.strictEqual(JSON.parse(replay).name, "Renamed once")
      assert.deepStrictEqual(JSON.parse(replay), JSON.parse(first))
      const rows = yield* queryAt(url, "SELECT name FROM guilds WHERE id = 500")
      assert.deepStrictEqual(rows, [{ name: "Renamed once" }])
      const operations = yield* queryAt(url, "SELECT operation_id FROM actor_operations ORDER BY operation_id")
      assert.deepStrictEqual(operations.map((r) => r.operation_id), ["9001", "create-500"])
      // The write left one audit entry, with its change and reason, under the operation's id.
      const audit = yield* queryAt(url, "SELECT id::text, user_id::text, action_type, target_id, reason, changes FROM guild_audit_log_entries")
      assert.deepStrictEqual(audit, [{
        id: "9001",
        user_id: "1",
        action_type: 1,
        target_id: "500",
        reason: "tidying",
        changes: [{ key: "name", old_value: "First", new_value: "Renamed once" }]
      }])
    }))

  it.effect("answers its typed errors: unknown guild, no access, no permission", () =>
    Effect.gen(function*() {
      const url = yield* DatabaseUrl
      yield* queryAt(url, "INSERT INTO users (id, username, discriminator) VALUES (2, 'other', '0002')")
      const client = yield* Guild.client
      const missing = yield* Effect.flip(client("999").View({ userId: "1" }))
      expect(missing).toMatchObject({ _tag: "NotFound", code: "UNKNOWN_GUILD" })
      const stranger = yield* Effect.flip(client("500").View({ userId: "2" }))
      expect(stranger).toMatchObject({ _tag: "Forbidden", code: "MISSING_ACCESS" })
      const strangerRead = yield* Effect.flip(client("500").Read({ viewerId: "2", query: { _tag: "GetMember", targetId: CarriedId.UserId.make("1") } }))
      expect(strangerRead).toMatchObject({ _tag: "Forbidden", code: "MISSING_ACCESS" })
      const strangerWrite = yield* Effect.flip(client("500").Write({
        operationId: "9100", actorId: "2", reason: null, now: Date.now(), command: { _tag: "UpdateGuild", patch: { name: "Mine" } }
      }))
      expect(strangerWrite).toMatchObject({ _tag: "Forbidden", code: "MISSING_ACCESS" })
    }))

  it.effect("commits concurrent writes in batches, in order, and one write that cannot commit takes no other with it", () =>
    Effect.gen(function*() {
      const url = yield* DatabaseUrl
      const client = yield* Guild.client
      yield* client("700").Create({ operationId: "create-700", channelId: "701", owner, name: "Other", icon: null })
      yield* queryAt(url, "UPDATE guilds SET vanity_url_code = 'taken' WHERE id = 700")
      const guild = client("500")
      const write = (operationId: string, command: typeof WriteCommand.Type) =>
        guild.Write({ operationId, actorId: "1", reason: null, now: Date.now(), command })
      // Renames race a vanity code that Postgres refuses (another guild holds it): the
      // renames' batch cannot commit as a whole, so each write is tried alone.
      const renames = Array.from({ length: 20 }, (_, i) => write(`${9500 + i}`, { _tag: "UpdateGuild", patch: { name: `Name ${i}` } }))
      const [renamed, vanity] = yield* Effect.all([
        Effect.all(renames, { concurrency: "unbounded" }),
        Effect.flip(write("9600", { _tag: "SetVanityCode", code: "taken" }))
      ], { concurrency: "unbounded" })
      assert.lengthOf(renamed, 20)
      expect(vanity).toMatchObject({ _tag: "BadRequest", code: "CONFLICT" })
      const operations = yield* queryAt(url, "SELECT operation_id FROM actor_operations WHERE operation_id >= '9500' AND operation_id < '9700'")
      assert.strictEqual(operations.length, 20)
      const [row] = yield* queryAt(url, "SELECT name, vanity_url_code FROM guilds WHERE id = 500")
      assert.strictEqual(row?.vanity_url_code, null)
      // The last rename to commit is the name in memory and in Postgres, and one audit entry each.
      const view = JSON.parse(yield* guild.View({ userId: "1" })) as { name: string }
      assert.strictEqual(view.name, row?.name)
      const audit = yield* queryAt(url, "SELECT count(*)::int AS n FROM guild_audit_log_entries WHERE id >= 9500 AND id < 9600")
      assert.deepStrictEqual(audit, [{ n: 20 }])
    }))
})
