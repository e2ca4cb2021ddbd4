import * as PgTypes from "@effect/sql-pg/PgTypes"
import { Result } from "effect"
import type { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import type { SqlValue } from "./Rows.ts"

/** One text[] parameter: every value as text (or NULL), for the statement to cast to its column's type. */
const textArray = (values: ReadonlyArray<string | null>): PgTypes.Parameter =>
  // text[] is a built-in type: its array OID is always known.
  Result.getOrThrow(PgTypes.array(values, PgTypes.OID.text))

/**
 * `rows` as a table of `names` for a FROM clause: `unnest` of one text[]
 * parameter per column. A batch's statement then has the same text whatever
 * its number of rows (a VALUES list has one parameter per value), so each
 * connection prepares it once and Postgres plans it once, where a VALUES list
 * of a new length is parsed and planned again, with hundreds of parameters,
 * on the busiest write path.
 */
export const rowsTable = (
  sql: SqlClient.SqlClient,
  rows: ReadonlyArray<ReadonlyArray<SqlValue>>,
  names: ReadonlyArray<string>
): Fragment => {
  const columns = names.map((_, column) => textArray(rows.map((row) => {
    const value = row[column] ?? null
    return value === null ? null : String(value)
  })))
  return sql`unnest(${sql.csv(columns.map((column) => sql`${column}::text[]`))}) AS ${sql.literal(`v(${names.join(", ")})`)}`
}
