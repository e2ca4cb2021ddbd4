import type { SqlClient, Statement } from "effect/sql"

/** A column value of a batched row; the sink's statement casts it to the column's type. */
export type SqlValue = string | number | boolean | null

/**
 * Statements that write the rows of many writes at once: a batch hands them
 * every row its writes left for the sink, at most one per key, the last one.
 * They run in order, or as the parts of the batch's one statement when the
 * batch writes nothing else (BatchStatements.ts). `ownerId` is the entity of
 * the actor writing (a guild, a DM channel).
 */
export interface RowSink {
  readonly name: string
  readonly statements: (
    sql: SqlClient.SqlClient,
    ownerId: string,
    rows: ReadonlyArray<ReadonlyArray<SqlValue>>
  ) => ReadonlyArray<Statement.Fragment>
}

/** One row of a write for `sink`; a later row of the same key in the batch replaces it. */
export interface RowWrite {
  readonly sink: RowSink
  readonly key: string
  readonly values: ReadonlyArray<SqlValue>
}
