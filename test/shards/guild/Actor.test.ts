import { assert, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { embeddedActorsLayer } from "../../../src/App.ts"
import { Guild } from "../../../shards/guild/Protocol.ts"
import { AppConfig, settingsConfig } from "../../../src/Config.ts"
import { queryAt, scratchDatabase } from "../../support/Postgres.ts"

class DatabaseUrl extends Context.Service<DatabaseUrl, string>()("test/DatabaseUrl") {}

/** The guild actor on the embedded sharding, against a scratch database: no HTTP in between. */
const Cluster = Layer.unwrap(Effect.gen(function*() {
  const url = yield* scratchDatabase
  const settings = { ...(yield* settingsConfig), databaseUrl: Option.some(Redacted.make(url)) }
  const config = Layer.succeed(AppConfig, settings)
  return Layer.mergeAll(embeddedActorsLayer(settings), Layer.succeed(DatabaseUrl, url)).pipe(Layer.provide(config))
}))

const owner = { id: "1", username: "owner", discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 }

layer(Cluster, { timeout: 120_000, excludeTestServices: true })("guild actor", (it) => {
  it.effect("a write delivered again answers its first result and does not act twice", () =>
    Effect.gen(function*() {
      const url = yield* DatabaseUrl
      yield* queryAt(url, "INSERT INTO users (id, username, discriminator) VALUES (1, 'owner', '0001')")
      const guild = (yield* Guild.client)("500")
      const created = yield* guild.Create({ operationId: "create-500", channelId: "501", owner, name: "First", icon: null })
      const again = yield* guild.Create({ operationId: "create-500", channelId: "501", owner, name: "First", icon: null })
      assert.deepStrictEqual(again, created)

      const first = yield* guild.Update({ operationId: "update-1", userId: "1", patch: { name: "Renamed once" } })
      // The engine answers a resent message from its own storage. Forget it there, as when a
      // runner dies after the actor committed but before the reply was saved: the actor itself
      // must then recognise the operation. Another body proves the stored result is answered.
      yield* queryAt(url, "DELETE FROM cluster_replies")
      yield* queryAt(url, "DELETE FROM cluster_messages")
      const replay = yield* guild.Update({ operationId: "update-1", userId: "1", patch: { name: "Renamed twice" } })
      assert.strictEqual(replay.name, "Renamed once")
      assert.deepStrictEqual(replay, first)
      const rows = yield* queryAt(url, "SELECT name FROM guilds WHERE id = 500")
      assert.deepStrictEqual(rows, [{ name: "Renamed once" }])
      const operations = yield* queryAt(url, "SELECT operation_id FROM actor_operations ORDER BY operation_id")
      assert.deepStrictEqual(operations.map((r) => r.operation_id), ["create-500", "update-1"])
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
    }))
})
