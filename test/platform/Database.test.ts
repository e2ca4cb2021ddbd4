import { assert, describe, it } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Exit, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll } from "vitest"
import { AppConfig, type Settings } from "../../src/platform/Config.ts"
import * as Database from "../../src/platform/Database.ts"
import * as Migrations from "../../src/platform/Migrations.ts"
import { scratchDatabase } from "../support/Postgres.ts"

const settings = (database: { readonly dataDir: string; readonly databaseUrl?: string }): Settings => ({
  port: 0,
  host: "127.0.0.1",
  dataDir: database.dataDir,
  databaseUrl: database.databaseUrl === undefined ? Option.none() : Option.some(Redacted.make(database.databaseUrl)),
  redisUrl: Option.none(),
  redisKeyPrefix: "guildhall-test:",
  shardHost: "127.0.0.1",
  shardPort: 34431,
  shardAdvertiseHost: "127.0.0.1",
  shardAdvertisePort: 34431,
  shardLockExpirationSeconds: 6,
  actorCallTimeoutMillis: 10_000,
  maxResidentActors: 1_000,
  actorIdleMinutes: 30,
  adminBootstrapKey: Option.none(),
  logRequests: false,
  publicUrl: "http://localhost:8080",
  corsOrigins: ["http://localhost:8080"],
  smtpUrl: Option.none(),
  mailFrom: "test@localhost",
  smsProviderUrl: Option.none(),
  webauthnRpId: "localhost",
  webauthnRpName: "Guildhall",
  webauthnOrigins: ["http://localhost:8080"],
  rateLimits: false,
  actorLocalReads: true,
  accountDeletionGraceDays: 14,
  accountDeletionSweepSeconds: 60,
  scheduledMessageSweepSeconds: 5,
  messageDeletionSweepSeconds: 30,
  messageDeletionDelaySeconds: 86_400,
  discoveryMinMembers: 5,
  mediaS3: Option.none(),
  gatewayUrl: Option.none(),
  gatewayHeartbeatMillis: 41_250,
  gatewayOutboundLimitBytes: 8 * 1024 * 1024,
  trustedProxies: [],
  dnsServer: Option.none(),
  gifa: { apiUrl: "http://127.0.0.1:9", apiKey: Option.none() },
  gifb: { apiUrl: "http://127.0.0.1:9", apiKey: Option.none() },
  gifProviderTimeoutMillis: 5_000,
  socialInstanceUrl: Option.none(),
  mediaFetch: { allowPrivate: false, allowedNetworks: [], maxBytes: 1024, timeoutMillis: 1000 },
  memesMaxPerUser: 50,
  metrics: { enabled: false, port: Option.none(), host: "127.0.0.1" },
  otlpEndpoint: Option.none(),
  otelServiceName: Option.none(),
  otlpExportIntervalMillis: 5_000,
  otlpMaxBatchSize: 512,
  traceSampleRatio: 1,
  logFormat: "pretty",
  healthPort: Option.none()
})

/** A database layer of its own: never shared through a memo map with another one. */
const databaseLayer = (database: { readonly dataDir: string; readonly databaseUrl?: string }) =>
  Layer.fresh(Database.layer).pipe(Layer.provide(Layer.succeed(AppConfig, settings(database))))

const tempDirs: Array<string> = []
const tempDir = (prefix: string): string => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), prefix))
  tempDirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of tempDirs) Fs.rmSync(dir, { recursive: true, force: true })
})

/** A migrations directory holding `files`. */
const schemaDir = (files: Record<string, string>): string => {
  const dir = tempDir("guildhall-schema-")
  for (const [name, sql] of Object.entries(files)) Fs.writeFileSync(Path.join(dir, name), sql)
  return dir
}

const repoMigrationIds = Effect.map(Migrations.load(Migrations.directory), (files) => files.map((file) => file.id))

const recordedIds = Effect.gen(function*() {
  const sql = yield* SqlClient
  const rows = yield* sql<{ readonly id: number }>`SELECT id FROM schema_migrations ORDER BY id`
  return rows.map((row) => row.id)
})

const range = (n: number): ReadonlyArray<number> => Array.from({ length: n }, (_, i) => i)

describe("Database, embedded PGlite", () => {
  // One data directory for the block: creating it (initdb) takes seconds, reopening it does not.
  const dataDir = tempDir("guildhall-db-")
  const embedded = databaseLayer({ dataDir })

  it.live("applies migrations, and a row survives closing and reopening", () =>
    Effect.gen(function*() {
      const expected = yield* repoMigrationIds
      const openedAt = Date.now()
      const applied = yield* Effect.gen(function*() {
        const applied = yield* Migrations.run
        const sql = yield* SqlClient
        yield* sql`CREATE TABLE kv (id bigint PRIMARY KEY, value text NOT NULL)`
        yield* sql`INSERT INTO kv ${sql.insert({ id: "9007199254740993", value: "persisted" })}`
        return applied
      }).pipe(Effect.provide(embedded))
      yield* Effect.logInfo(`first open, migrate, write and close: ${Date.now() - openedAt} ms`)
      assert.deepStrictEqual(applied.map((migration) => migration.id), expected)
      assert.isFalse(Fs.existsSync(Path.join(dataDir, "pglite.lock")), "lock released")
      assert.isFalse(Fs.existsSync(Path.join(dataDir, ".s.PGSQL.5432")), "socket removed")

      const reopenedAt = Date.now()
      const reopened = yield* Effect.gen(function*() {
        const sql = yield* SqlClient
        return {
          again: yield* Migrations.run,
          recorded: yield* recordedIds,
          rows: yield* sql`SELECT id, value FROM kv`,
          config: (yield* PgClient.PgClient).config,
          driver: sql.driver
        }
      }).pipe(Effect.provide(embedded))
      yield* Effect.logInfo(`reopen, query and close: ${Date.now() - reopenedAt} ms`)
      assert.deepStrictEqual(reopened.again, [])
      assert.deepStrictEqual(reopened.recorded, expected)
      assert.deepStrictEqual(reopened.rows, [{ id: "9007199254740993", value: "persisted" }])
      assert.strictEqual(reopened.config.path, Path.join(dataDir, ".s.PGSQL.5432"))
      // What SqlRunnerStorage looks at to keep off reserved connections and advisory locks.
      assert.strictEqual(reopened.driver, "pglite")
    }), { timeout: 120_000 })

  it.live("serves many fibers at once, and keeps their transactions apart", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient
      yield* sql`CREATE TABLE tx_probe (fiber integer NOT NULL, step integer NOT NULL)`

      const echoed = yield* Effect.forEach(
        range(200),
        (i) => Effect.map(sql<{ readonly i: number }>`SELECT ${i}::integer AS i`, (rows) => rows[0]?.i),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(echoed, [...range(200)])

      // Odd fibers fail after writing; if their statements ran inside another
      // fiber's transaction (or the other way round), the counts below would be off.
      const exits = yield* Effect.forEach(
        range(40),
        (i) =>
          sql.withTransaction(
            Effect.gen(function*() {
              yield* sql`INSERT INTO tx_probe (fiber, step) VALUES (${i}, 0)`
              yield* Effect.sleep(1)
              yield* sql`INSERT INTO tx_probe (fiber, step) VALUES (${i}, 1)`
              const own = yield* sql<{ readonly n: number }>`SELECT count(*)::integer AS n FROM tx_probe WHERE fiber = ${i}`
              assert.strictEqual(own[0]?.n, 2)
              if (i % 2 === 1) return yield* Effect.fail(`fiber ${i} rolls back`)
            })
          ).pipe(Effect.exit),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(exits.map(Exit.isSuccess), range(40).map((i) => i % 2 === 0))

      const rows = yield* sql<{ readonly fiber: number; readonly n: number }>`
        SELECT fiber, count(*)::integer AS n FROM tx_probe GROUP BY fiber ORDER BY fiber`
      assert.deepStrictEqual(rows, range(20).map((i) => ({ fiber: 2 * i, n: 2 })))
    }).pipe(Effect.provide(embedded)), { timeout: 120_000 })

  it.live("a rolled back transaction leaves no row", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient
      yield* sql`CREATE TABLE rollback_probe (id bigint PRIMARY KEY)`
      const error = yield* sql.withTransaction(
        Effect.gen(function*() {
          yield* sql`INSERT INTO rollback_probe (id) VALUES (${"123"})`
          const inside = yield* sql`SELECT id FROM rollback_probe`
          assert.deepStrictEqual(inside, [{ id: "123" }])
          return yield* Effect.fail("abort")
        })
      ).pipe(Effect.flip)
      assert.strictEqual(error, "abort")
      assert.deepStrictEqual(yield* sql`SELECT id FROM rollback_probe`, [])
    }).pipe(Effect.provide(embedded)), { timeout: 120_000 })

  it.live("refuses a second opening of the same data directory", () =>
    Effect.gen(function*() {
      const error = yield* Layer.build(databaseLayer({ dataDir })).pipe(Effect.scoped, Effect.flip)
      assert.strictEqual(error._tag, "EmbeddedDatabaseError")
      assert.include(error.message, "in use")
      // The first one is unharmed.
      const sql = yield* SqlClient
      assert.deepStrictEqual(yield* sql`SELECT 1::integer AS one`, [{ one: 1 }])
    }).pipe(Effect.provide(embedded)), { timeout: 120_000 })

  it.live("serves on 127.0.0.1 when the socket path would be too long", () =>
    Effect.gen(function*() {
      const longDir = Path.join(tempDir("guildhall-db-"), "x".repeat(120))
      const result = yield* Effect.gen(function*() {
        const sql = yield* SqlClient
        return {
          config: (yield* PgClient.PgClient).config,
          rows: yield* sql`SELECT 42::bigint AS answer`
        }
      }).pipe(Effect.provide(databaseLayer({ dataDir: longDir })))
      assert.strictEqual(result.config.path, undefined)
      assert.strictEqual(result.config.host, "127.0.0.1")
      assert.deepStrictEqual(result.rows, [{ answer: "42" }])
    }), { timeout: 120_000 })
})

describe("Database, real Postgres", () => {
  /** A fresh database for the test's scope, dropped when it ends; its Database.layer. */
  const freshDatabase = Effect.map(scratchDatabase, (databaseUrl) =>
    databaseLayer({ dataDir: tempDir("guildhall-unused-"), databaseUrl }))

  it.live("applies migrations once, however often it runs", () =>
    Effect.gen(function*() {
      const postgres = yield* freshDatabase
      const expected = yield* repoMigrationIds
      const first = yield* Effect.provide(Migrations.run, postgres)
      const second = yield* Effect.provide(Migrations.run, postgres)
      assert.deepStrictEqual(first.map((migration) => migration.id), expected)
      assert.deepStrictEqual(second, [])
      assert.deepStrictEqual(yield* Effect.provide(recordedIds, postgres), expected)
    }))

  it.live("concurrent migration runs apply each file exactly once", () =>
    Effect.gen(function*() {
      const sorted = (runs: ReadonlyArray<ReadonlyArray<Migrations.Applied>>) =>
        runs.flatMap((run) => run.map((migration) => migration.id)).sort((a, b) => a - b)

      const repository = yield* freshDatabase
      const expected = yield* repoMigrationIds
      const repositoryRuns = yield* Effect.all(
        [Effect.provide(Migrations.run, repository), Effect.provide(Migrations.run, repository), Effect.provide(Migrations.run, repository)],
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(sorted(repositoryRuns), expected)
      assert.deepStrictEqual(yield* Effect.provide(recordedIds, repository), expected)

      const slow = yield* freshDatabase
      const dir = schemaDir({
        "0001_slow.sql": "CREATE TABLE slow (id bigint PRIMARY KEY);\nSELECT pg_sleep(0.3);",
        "0002_second.sql": "CREATE TABLE second (id bigint PRIMARY KEY);",
        "0010_third.sql": "ALTER TABLE second ADD COLUMN name text;\nCREATE INDEX second_name ON second (name);"
      })
      const slowRuns = yield* Effect.all(
        [Effect.provide(Migrations.runFrom(dir), slow), Effect.provide(Migrations.runFrom(dir), slow)],
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(sorted(slowRuns), [1, 2, 10])
      assert.deepStrictEqual(yield* Effect.provide(recordedIds, slow), [1, 2, 10])
    }))

  it.live("a failing file stops the run, names the file and leaves nothing of it", () =>
    Effect.gen(function*() {
      const postgres = yield* freshDatabase
      const dir = schemaDir({
        "0001_ok.sql": "-- a comment only, then a table\nCREATE TABLE ok (id bigint PRIMARY KEY);",
        "0002_broken.sql": "CREATE TABLE half (id bigint);\nINSERT INTO half (id) VALUES ('not a number');",
        "0003_never.sql": "CREATE TABLE never (id bigint);",
        "README.md": "not a migration"
      })
      const error = yield* Effect.provide(Migrations.runFrom(dir), postgres).pipe(Effect.flip)
      assert.strictEqual(error._tag, "MigrationError")
      assert.strictEqual(error._tag === "MigrationError" ? error.file : "", "0002_broken.sql")
      assert.include(error.message, "0002_broken.sql")
      assert.include(error.message, "line 2: invalid input syntax for type bigint: \"not a number\"")
      const tables = yield* Effect.provide(
        Effect.flatMap(SqlClient, (sql) =>
          sql<{ readonly name: string | null }>`SELECT to_regclass('half')::text AS name
            UNION ALL SELECT to_regclass('ok')::text`),
        postgres
      )
      assert.deepStrictEqual(tables.map((row) => row.name), [null, "ok"])
      assert.deepStrictEqual(yield* Effect.provide(recordedIds, postgres), [1])
    }))

  it.live("int8 values come back as strings", () =>
    Effect.gen(function*() {
      const postgres = yield* freshDatabase
      const rows = yield* Effect.gen(function*() {
        const sql = yield* SqlClient
        yield* sql`CREATE TABLE snowflakes (id bigint PRIMARY KEY, n integer NOT NULL)`
        yield* sql`INSERT INTO snowflakes ${sql.insert([{ id: "9223372036854775807", n: 1 }, { id: "1", n: 2 }])}`
        yield* sql`INSERT INTO snowflakes (id, n) VALUES (${-9007199254740993n}, 3)`
        return {
          table: yield* sql`SELECT id, n FROM snowflakes ORDER BY n`,
          byParam: yield* sql`SELECT n FROM snowflakes WHERE id = ${"9223372036854775807"}`,
          literals: yield* sql`SELECT 1::int8 AS one, ARRAY[1, 2]::int8[] AS ids, count(*) AS n FROM snowflakes`,
          driver: sql.driver
        }
      }).pipe(Effect.provide(postgres))
      assert.deepStrictEqual(rows.table, [
        { id: "9223372036854775807", n: 1 },
        { id: "1", n: 2 },
        { id: "-9007199254740993", n: 3 }
      ])
      assert.deepStrictEqual(rows.byParam, [{ n: 1 }])
      assert.deepStrictEqual(rows.literals, [{ one: "1", ids: ["1", "2"], n: "3" }])
      assert.strictEqual(rows.driver, "pg")
    }))
})

describe("Migrations.load", () => {
  it.effect("rejects a .sql file without a number, and duplicate ids", () =>
    Effect.gen(function*() {
      const misnamed = yield* Migrations.load(schemaDir({ "0001_a.sql": "", "init.sql": "" })).pipe(Effect.flip)
      assert.strictEqual(misnamed.file, "init.sql")
      const duplicate = yield* Migrations.load(schemaDir({ "0001_a.sql": "", "1_b.sql": "" })).pipe(Effect.flip)
      assert.include(duplicate.message, "also used by")
      const ordered = yield* Migrations.load(schemaDir({ "10_c.sql": "", "0002_b.sql": "", "0001_a.sql": "" }))
      assert.deepStrictEqual(ordered.map((file) => file.file), ["0001_a.sql", "0002_b.sql", "10_c.sql"])
    }))
})
