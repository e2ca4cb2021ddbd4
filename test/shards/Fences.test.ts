import { assert, layer } from "@effect/vitest"
import { Effect, Exit, Layer, Option, Redacted } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { type Fences, isFenceLost, makeFences } from "../../shards/actors/Fences.ts"
import { recordOperations } from "../../shards/actors/Operations.ts"
import { AppConfig, settingsConfig } from "../../src/platform/Config.ts"
import * as Database from "../../src/platform/Database.ts"
import * as Migrations from "../../src/platform/Migrations.ts"
import { scratchDatabase } from "../support/Postgres.ts"

/** Postgres with the schema applied, on a scratch database. */
const Migrated = Layer.unwrap(Effect.gen(function*() {
  const url = yield* scratchDatabase
  const settings = { ...(yield* settingsConfig), databaseUrl: Option.some(Redacted.make(url)) }
  return Migrations.layer.pipe(Layer.provideMerge(Database.layer.pipe(Layer.provide(Layer.succeed(AppConfig, settings)))))
}))

const write = (operationId: string) => ({
  write: { operationId, actorId: "1", reason: null, now: 0 },
  decision: { reply: JSON.stringify({ ok: operationId }) }
})

/** Records one operation for guild 7 under `fences`' epoch: how every commit of the actor ends. */
const commitWith = (sql: SqlClient.SqlClient, fences: Fences, operationId: string) =>
  Effect.exit(recordOperations(sql, "7", [write(operationId)], fences.of("7")))

const storedOperations = (sql: SqlClient.SqlClient) =>
  Effect.map(sql<{ operation_id: string }>`SELECT operation_id FROM actor_operations WHERE entity_id = '7' ORDER BY operation_id`, (rows) =>
    rows.map((r) => r.operation_id))

layer(Migrated, { timeout: 60_000 })("actor fences", (it) => {
  it.effect("a process that loaded an actor before another did commits nothing more of it; the last to load commits", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // Two processes' repositories: each keeps the epoch it claimed when it loaded the actor.
      const paused = makeFences(sql, "guild")
      const successor = makeFences(sql, "guild")
      yield* paused.claim("7")
      assert.isTrue(Exit.isSuccess(yield* commitWith(sql, paused, "11")))

      // The first process stalls past its lease; the second loads the actor.
      yield* successor.claim("7")
      const stale = yield* commitWith(sql, paused, "12")
      assert.isTrue(Exit.isFailure(stale))
      const error = Exit.isFailure(stale) ? stale.cause.reasons.find((r) => r._tag === "Fail")?.error : undefined
      assert.isTrue(error instanceof SqlError.SqlError && isFenceLost(error), String(error))
      assert.isTrue(Exit.isSuccess(yield* commitWith(sql, successor, "13")))
      assert.deepStrictEqual(yield* storedOperations(sql), ["11", "13"])

      // Loading again takes the actor back: then the successor is the stale one.
      yield* paused.claim("7")
      assert.isTrue(Exit.isFailure(yield* commitWith(sql, successor, "14")))
      assert.isTrue(Exit.isSuccess(yield* commitWith(sql, paused, "15")))
      assert.deepStrictEqual(yield* storedOperations(sql), ["11", "13", "15"])
      // Other actors, and other kinds of actor with the same id, have fences of their own.
      const users = makeFences(sql, "user")
      yield* users.claim("7")
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(recordOperations(sql, "u7", [write("16")], users.of("7")))))
    }))
})
