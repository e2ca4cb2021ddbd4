/**
 * Schema migrations: the numbered SQL files in `schema/` at the repository
 * root (`0001_init.sql`, `0002_something.sql`, ...), applied in id order at
 * start-up and by `npm run migrate`.
 *
 * - Applied ids are recorded in `schema_migrations`; a file whose id is there is
 *   never run again (renaming a file does not re-run it, editing an applied file
 *   has no effect: add a new file instead).
 * - Each file runs in its own transaction together with its
 *   `schema_migrations` row, so a failing file leaves nothing behind and stops
 *   with a `MigrationError` naming it; files before it stay applied.
 * - Every transaction first takes `pg_advisory_xact_lock`, so processes starting
 *   at the same time apply each file exactly once; the others wait, then see it
 *   recorded.
 * - A file may hold several statements (it is executed by the server through
 *   PL/pgSQL `EXECUTE`, which accepts a multi-statement string; the extended
 *   protocol `@effect/sql-pg` speaks does not). So a file must not contain
 *   transaction control (`BEGIN`, `COMMIT`), `CREATE INDEX CONCURRENTLY`,
 *   `VACUUM`, or `SELECT ... INTO new_table` (use `CREATE TABLE ... AS`).
 *   Settings belong in `SET LOCAL`: a plain `SET` would outlive the migration
 *   in the pooled session (in embedded mode, the one session of the process).
 */
import { Effect, Layer, Predicate, Schema } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as Fs from "node:fs"
import * as Path from "node:path"

/** `schema/` at the repository root, wherever the process was started from. */
export const directory: string = Path.resolve(import.meta.dirname, "..", "..", "schema")

/** A migration could not be read, or failed; `file` names it. */
export class MigrationError extends Schema.TaggedError<MigrationError>()("MigrationError", {
  file: Schema.String,
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

/** One file of the migrations directory. */
export interface MigrationFile {
  readonly id: number
  readonly name: string
  /** The file name, e.g. `0001_init.sql`. */
  readonly file: string
  readonly sql: string
}

const fileName = /^(\d+)_(.+)\.sql$/

/** The `*.sql` files of `dir` in id order; other files are ignored. */
export const load = (dir: string): Effect.Effect<ReadonlyArray<MigrationFile>, MigrationError> =>
  Effect.try({
    try: () => {
      const files: Array<MigrationFile> = []
      const byId = new Map<number, string>()
      for (const file of Fs.readdirSync(dir).sort()) {
        if (!file.endsWith(".sql")) continue
        const match = fileName.exec(file)
        if (match === null || match[1] === undefined || match[2] === undefined) {
          throw new MigrationError({ file, message: `${file}: a migration is named <number>_<name>.sql` })
        }
        const id = Number.parseInt(match[1], 10)
        const previous = byId.get(id)
        if (previous !== undefined) {
          throw new MigrationError({ file, message: `${file}: migration id ${id} is also used by ${previous}` })
        }
        byId.set(id, file)
        const sql = Fs.readFileSync(Path.join(dir, file), "utf8").replace(/^\uFEFF/, "")
        files.push({ id, name: match[2], file, sql })
      }
      return files.sort((a, b) => a.id - b.id)
    },
    catch: (cause) =>
      cause instanceof MigrationError
        ? cause
        : new MigrationError({ file: dir, message: `cannot read migrations from ${dir}: ${String(cause)}`, cause })
  })

/** An applied migration, as `run` reports it. */
export interface Applied {
  readonly id: number
  readonly file: string
}

/** Any constant; only migrations take this advisory lock. */
const lockKey = 7_340_512_866_410_533_001n

/** A PL/pgSQL dollar-quote tag that does not occur in `text`. */
const dollarTag = (text: string, base: string): string => {
  for (let n = 0;; n++) {
    const tag = `$${base}${n}$`
    if (!text.includes(tag)) return tag
  }
}

/** One statement that runs every statement of `sql`, via PL/pgSQL `EXECUTE`. */
const executeAll = (sql: string): string => {
  const inner = dollarTag(sql, "guildhall_migration_sql_")
  const outer = dollarTag(sql + inner, "guildhall_migration_")
  return `DO ${outer} BEGIN EXECUTE ${inner}${sql}\n${inner}; END ${outer}`
}

const textField = (cause: unknown, name: string): string | undefined => {
  if (!Predicate.hasProperty(cause, name)) return undefined
  const value = cause[name]
  return typeof value === "string" && value !== "" ? value : undefined
}

/**
 * The server's own message, with the line of the file it points at when it
 * points anywhere (the query it reports then is the file's text).
 */
const describe = (error: SqlError): string => {
  const cause = error.reason.cause
  const message = textField(cause, "message") ?? error.message
  const detail = textField(cause, "detail")
  const query = textField(cause, "internalQuery")
  const position = Number(textField(cause, "internalPosition"))
  const line = query !== undefined && Number.isInteger(position) && position > 0
    ? ` at line ${query.slice(0, position - 1).split("\n").length}`
    : ""
  return `${line === "" ? "" : line.slice(1) + ": "}${message}${detail === undefined ? "" : ` (${detail})`}`
}

/**
 * Applies the pending migrations of `dir` in id order and returns them; the
 * ones applied before (by this or another process) are skipped.
 */
export const runFrom = (dir: string): Effect.Effect<ReadonlyArray<Applied>, MigrationError | SqlError, SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient
    const files = yield* load(dir)
    const lock = sql`SELECT pg_advisory_xact_lock(${lockKey})`

    const appliedIds = yield* sql.withTransaction(
      Effect.gen(function*() {
        yield* lock
        yield* sql`CREATE TABLE IF NOT EXISTS schema_migrations (
          id integer PRIMARY KEY,
          name text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )`
        const rows = yield* sql<{ readonly id: number }>`SELECT id FROM schema_migrations`
        return new Set(rows.map((row) => row.id))
      })
    )

    const applied: Array<Applied> = []
    for (const migration of files) {
      if (appliedIds.has(migration.id)) continue
      const ran = yield* sql.withTransaction(
        Effect.gen(function*() {
          yield* lock
          // Another process may have applied it while we waited for the lock.
          const done = yield* sql`SELECT 1 FROM schema_migrations WHERE id = ${migration.id}`
          if (done.length > 0) return false
          yield* sql.unsafe(executeAll(migration.sql)).unprepared.pipe(
            Effect.mapError((error) =>
              new MigrationError({
                file: migration.file,
                message: `migration ${migration.file} failed: ${describe(error)}`,
                cause: error
              })
            )
          )
          yield* sql`INSERT INTO schema_migrations (id, name) VALUES (${migration.id}, ${migration.name})`
          return true
        })
      )
      if (ran) {
        applied.push({ id: migration.id, file: migration.file })
        yield* Effect.logInfo(`applied migration ${migration.file}`)
      }
    }
    return applied
  })

/** Applies the pending migrations of `schema/`. */
export const run: Effect.Effect<ReadonlyArray<Applied>, MigrationError | SqlError, SqlClient> = runFrom(directory)

/** Runs `run` when built; for the server's start-up. */
export const layer: Layer.Layer<never, MigrationError | SqlError, SqlClient> = Layer.effectDiscard(run)

/** `Migrations.run` etc. for `import { Migrations } from "./platform/Migrations.ts"`. */
export const Migrations = { run, runFrom, layer, load, directory } as const
