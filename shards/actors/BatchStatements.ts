import { Effect } from "effect"
import { SqlClient, type SqlError, type Statement } from "effect/sql"
import type { RowSink, RowWrite, SqlValue } from "./Rows.ts"

type Rows = ReadonlyArray<ReadonlyArray<SqlValue>>

/** What a batch writes of a decision: rows for the sinks, and statements of its own. */
interface Batched {
  readonly rows?: ReadonlyArray<RowWrite> | undefined
  readonly persist?: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> | undefined
}

/** Runs a sink's statements for `rows`, in order. */
export const writeRows = (sink: RowSink, ownerId: string, rows: Rows): Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach(sink.statements(sql, ownerId, rows), (part) => sql`${part}`, { discard: true }))

/** Each sink's rows of `decisions`: at most one per key, the last one, in the order of the writes. */
const gather = (decisions: ReadonlyArray<Pick<Batched, "rows">>) => {
  const bySink = new Map<RowSink, Map<string, ReadonlyArray<SqlValue>>>()
  for (const { rows } of decisions) {
    for (const row of rows ?? []) {
      const forSink = bySink.get(row.sink) ?? new Map<string, ReadonlyArray<SqlValue>>()
      // Deleted first so the row takes its place at the end: the order of rows is the order of writes.
      forSink.delete(row.key)
      forSink.set(row.key, row.values)
      bySink.set(row.sink, forSink)
    }
  }
  return bySink
}

/**
 * The statements of a batch's decisions, in their order, with their batched
 * rows gathered into one statement per sink. Rows wait for the next
 * statement that is not a row (or the end), so every statement still sees
 * what the writes before it wrote: a message created and deleted in the same
 * batch is inserted before it is deleted, not after.
 */
export const writeDecisions = (ownerId: string, decisions: ReadonlyArray<Batched>): Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    let since = 0
    const flush = (end: number) =>
      Effect.suspend(() => {
        const rows = gather(decisions.slice(since, end))
        since = end
        return Effect.forEach(rows, ([sink, values]) => writeRows(sink, ownerId, [...values.values()]), { discard: true })
      })
    for (const [index, { persist }] of decisions.entries()) {
      if (persist === undefined) continue
      yield* flush(index)
      yield* persist
    }
    yield* flush(decisions.length)
  })

/**
 * The parts of one statement that writes the batch's rows, when one can:
 * no decision has statements of its own and all rows go to one sink. (Parts
 * of one statement share a snapshot, so rows of two sinks, a message and a
 * reaction to it, could not see each other.) Undefined: `writeDecisions`.
 */
export const rowsInOneStatement = (
  sql: SqlClient.SqlClient,
  ownerId: string,
  decisions: ReadonlyArray<Batched>
): ReadonlyArray<Statement.Fragment> | undefined => {
  if (decisions.some((d) => d.persist !== undefined)) return undefined
  const bySink = gather(decisions)
  if (bySink.size > 1) return undefined
  return [...bySink].flatMap(([sink, rows]) => sink.statements(sql, ownerId, [...rows.values()]))
}
