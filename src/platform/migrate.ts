/**
 * `npm run migrate`: applies the pending migrations of `schema/` to the
 * configured database (`DATABASE_URL`, or the embedded one under `DATA_DIR`),
 * then exits; non-zero when a migration fails.
 *
 * In embedded mode it cannot run while a server has the same `DATA_DIR` open
 * (the database is locked); the server applies migrations at start-up anyway.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { AppConfig } from "./Config.ts"
import * as Database from "./Database.ts"
import * as Migrations from "./Migrations.ts"

const program = Effect.gen(function*() {
  const applied = yield* Migrations.run
  yield* Effect.logInfo(
    applied.length === 0
      ? "database schema is up to date"
      : `applied ${applied.length} migration(s): ${applied.map((migration) => migration.file).join(", ")}`
  )
})

program.pipe(
  Effect.provide(Database.layer.pipe(Layer.provide(AppConfig.layer))),
  NodeRuntime.runMain
)
