import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { DmChannel } from "../../shards/dm/Protocol.ts"
import { Guild } from "../../shards/guild/Protocol.ts"
import { queryAt } from "../support/Postgres.ts"
import { ActorCluster, DatabaseUrl, testOwner as owner } from "../support/ActorCluster.ts"

/**
 * Writes Postgres refuses for good, driven into the actors directly (the HTTP edge and the
 * protocol's schemas refuse such text before it gets here): each is answered 400 at once and
 * never delivered again, and the actor goes on answering. A refusal retried would hang the
 * call past the test's timeout.
 */
layer(ActorCluster, { timeout: 60_000, excludeTestServices: true })("writes Postgres refuses for good", (it) => {
  it.effect("a guild creation that cannot commit is answered 400, stored as its final reply, and the guild id stays usable", () =>
    Effect.gen(function*() {
      const url = yield* DatabaseUrl
      yield* queryAt(url, "INSERT INTO users (id, username, discriminator) VALUES (1, 'owner', '0001') ON CONFLICT DO NOTHING")
      const guild = (yield* Guild.client)("800")
      const refused = yield* Effect.flip(guild.Create({ operationId: "create-800-nul", channelId: "801", owner, name: "a\u0000b", icon: null }))
      expect(refused).toMatchObject({ _tag: "BadRequest", code: "INVALID_FORM_BODY" })
      // The engine stored the refusal as the message's reply: nothing is left to deliver again.
      const unprocessed = yield* queryAt(url, "SELECT count(*)::int AS n FROM cluster_messages WHERE NOT processed")
      assert.deepStrictEqual(unprocessed, [{ n: 0 }])
      const again = yield* Effect.flip(guild.Create({ operationId: "create-800-nul", channelId: "801", owner, name: "a\u0000b", icon: null }))
      expect(again).toMatchObject({ _tag: "BadRequest", code: "INVALID_FORM_BODY" })

      const created = yield* guild.Create({ operationId: "create-800", channelId: "801", owner, name: "Fine", icon: null })
      assert.strictEqual(created.name, "Fine")
      const view = JSON.parse(yield* guild.View({ userId: "1" })) as { name: string }
      assert.strictEqual(view.name, "Fine")
    }))

  it.effect("a write the database refuses for good is answered 400 at once; the guild answers the next read and write", () =>
    Effect.gen(function*() {
      const url = yield* DatabaseUrl
      yield* queryAt(url, "INSERT INTO users (id, username, discriminator) VALUES (1, 'owner', '0001') ON CONFLICT DO NOTHING")
      const guild = (yield* Guild.client)("810")
      yield* guild.Create({ operationId: "create-810", channelId: "811", owner, name: "Second", icon: null })
      const rename = (operationId: string, name: string) =>
        guild.Write({ operationId, actorId: "1", reason: null, now: Date.now(), command: { _tag: "UpdateGuild", patch: { name } } })
      // The protocol's own schemas refuse NUL now; a constraint of this scratch database is
      // the refusal that passes every schema and still fails the commit, every time.
      yield* queryAt(url, "ALTER TABLE guilds ADD CONSTRAINT refused_name CHECK (name <> 'Refused')")
      const refused = yield* Effect.flip(rename("9801", "Refused"))
      expect(refused).toMatchObject({ _tag: "BadRequest", code: "CONFLICT" })
      // Refused alongside others in one batch, it takes none of them with it.
      const [named, alsoRefused] = yield* Effect.all([
        rename("9802", "Renamed"),
        Effect.flip(rename("9803", "Refused"))
      ], { concurrency: "unbounded" })
      expect(alsoRefused).toMatchObject({ _tag: "BadRequest", code: "CONFLICT" })
      assert.strictEqual(JSON.parse(named).name, "Renamed")
      const view = JSON.parse(yield* guild.View({ userId: "1" })) as { name: string }
      assert.strictEqual(view.name, "Renamed")
      const rows = yield* queryAt(url, "SELECT name FROM guilds WHERE id = 810")
      assert.deepStrictEqual(rows, [{ name: "Renamed" }])
    }))

  it.effect("the DM channel actor, on the same write path, answers such a write 400 and goes on answering", () =>
    Effect.gen(function*() {
      const url = yield* DatabaseUrl
      yield* queryAt(url, "INSERT INTO users (id, username, discriminator) VALUES (1, 'owner', '0001') ON CONFLICT DO NOTHING")
      yield* queryAt(url, "INSERT INTO channels (id, type, name) VALUES (900, 3, 'Group')")
      yield* queryAt(url, "INSERT INTO dm_channels (channel_id, owner_id) VALUES (900, 1)")
      yield* queryAt(url, "INSERT INTO dm_recipients (channel_id, user_id) VALUES (900, 1)")
      const channel = (yield* DmChannel.client)("900")
      const rename = (operationId: string, name: string) =>
        channel.Write({ operationId, actorId: "1", now: Date.now(), command: { _tag: "UpdateGroup", patch: { name } } })
      yield* queryAt(url, "ALTER TABLE channels ADD CONSTRAINT refused_name CHECK (name IS DISTINCT FROM 'Refused')")
      const refused = yield* Effect.flip(rename("9901", "Refused"))
      expect(refused).toMatchObject({ _tag: "BadRequest", code: "CONFLICT" })
      assert.strictEqual(JSON.parse(yield* rename("9902", "Renamed")).name, "Renamed")
      const rows = yield* queryAt(url, "SELECT name FROM channels WHERE id = 900")
      assert.deepStrictEqual(rows, [{ name: "Renamed" }])
    }))
})
