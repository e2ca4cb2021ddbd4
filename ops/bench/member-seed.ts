// Big guilds for the member benchmarks, written straight into Postgres: thousands of users
// and memberships through the API would take minutes, one INSERT ... SELECT generate_series
// takes a moment. Used by ops/bench/run.ts and ops/bench/guild-memory.ts.
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"

/** A database to create scratch databases from; override with BENCH_PG_URL. */
export const PG_ADMIN_URL = process.env["BENCH_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres"

const SNOWFLAKE_EPOCH = 1420070400000n

/** Runs `statements` in order on the database at `url`. */
export const runSql = (url: string, statements: ReadonlyArray<string>): Promise<void> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      for (const statement of statements) yield* sql.unsafe(statement)
    }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url) })), Effect.scoped)
  )

/** A new empty database on the admin URL's server; its URL and how to drop it. */
export const scratchDatabase = async (): Promise<{ url: string; drop: () => Promise<void> }> => {
  const name = `bench_members_${randomUUID().replaceAll("-", "").slice(0, 12)}`
  await runSql(PG_ADMIN_URL, [`CREATE DATABASE ${name}`])
  const url = new URL(PG_ADMIN_URL)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => runSql(PG_ADMIN_URL, [`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]) }
}

let seeded = 0n

/**
 * Adds `count` users to the guild as members: names `m<guild>_<n>`, a global
 * name on every fifth, a nickname on every tenth, joins a minute apart, join
 * sources and invite codes spread over a few values (what member search filters on).
 */
export const seedMembers = async (url: string, guildId: string, count: number): Promise<ReadonlyArray<string>> => {
  // Snowflakes of now: ids above any the server made, apart for each seeding.
  const base = ((BigInt(Date.now()) - SNOWFLAKE_EPOCH) << 22n) + (seeded += 1n) * 10_000_000n
  const tag = guildId.slice(-6)
  await runSql(url, [
    `INSERT INTO users (id, username, discriminator, global_name)
     SELECT ${base} + g, 'm${tag}_' || g, lpad((g % 10000)::text, 4, '0'),
            CASE WHEN g % 5 = 0 THEN 'Member ' || g END
     FROM generate_series(1, ${count}) AS g`,
    `INSERT INTO guild_members (guild_id, user_id, nick, joined_at, join_source_type, source_invite_code)
     SELECT ${guildId}, ${base} + g, CASE WHEN g % 10 = 0 THEN 'nick ' || g END,
            now() - (g || ' minutes')::interval, (ARRAY[0, 1, 2, 3, 4, 6])[1 + g % 6],
            CASE WHEN g % 3 = 0 THEN 'code' || (g % 7) END
     FROM generate_series(1, ${count}) AS g`
  ])
  return Array.from({ length: Math.min(count, 1000) }, (_, i) => (base + BigInt(i + 1)).toString())
}
