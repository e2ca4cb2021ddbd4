import { Effect } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import type { Decision, RowSink, SqlValue } from "./Operations.ts"

/**
 * The statements of a batch's decisions, in their order, with their batched
 * rows gathered into one statement per sink. Rows wait for the next
 * statement that is not a row (or the end), so every statement still sees
 * what the writes before it wrote: a message created and deleted in the same
 * batch is inserted before it is deleted, not after.
 */
export const writeDecisions = (
  guildId: string,
  decisions: ReadonlyArray<Pick<Decision<unknown>, "rows" | "persist">>
): Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    let pending = new Map<RowSink, Map<string, ReadonlyArray<SqlValue>>>()
    const flush = Effect.suspend(() => {
      const sinks = pending
      pending = new Map()
      return Effect.forEach(sinks, ([sink, rows]) => sink.writeAll(guildId, [...rows.values()]), { discard: true })
    })
    for (const { rows, persist } of decisions) {
      if (persist !== undefined) {
        yield* flush
        yield* persist
      }
      for (const row of rows ?? []) {
        const forSink = pending.get(row.sink) ?? new Map<string, ReadonlyArray<SqlValue>>()
        // Deleted first so the row takes its place at the end: the order of rows is the order of writes.
        forSink.delete(row.key)
        forSink.set(row.key, row.values)
        pending.set(row.sink, forSink)
      }
    }
    yield* flush
  })
