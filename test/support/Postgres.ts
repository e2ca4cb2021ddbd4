import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"

const ADMIN_URL = "postgres://postgres@127.0.0.1:5432/test"

const admin = (statement: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(ADMIN_URL) })),
    Effect.orDie
  )

/** A fresh database on the local Postgres for the scope, dropped when it ends; its URL. */
export const scratchDatabase = Effect.map(
  Effect.acquireRelease(
    Effect.suspend(() => {
      const name = `guildhall_test_${randomUUID().replaceAll("-", "").slice(0, 16)}`
      return Effect.as(admin(`CREATE DATABASE ${name}`), name)
    }),
    (name) => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  ),
  (name) => `postgres://postgres@127.0.0.1:5432/${name}`
)

/** Runs one statement on the database at `url` (tests reading or changing what the server stored). */
export const queryAt = (url: string, statement: string, params: ReadonlyArray<unknown> = []) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<Record<string, unknown>>(statement, params)).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(url) })),
    Effect.orDie
  )
