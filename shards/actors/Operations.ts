import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { rowsInOneStatement, writeDecisions } from "./BatchStatements.ts"
import { rowsTable } from "./RowColumns.ts"
import { type Fence, fenceHeld } from "./Fences.ts"
import type { CommittedWrite } from "./WriteBatches.ts"

const OPERATION_COLUMNS = ["operation_id", "result"]

/**
 * `actor_operations`: the result of every committed write by its operation id,
 * so a write delivered again answers what it answered the first time.
 */

/**
 * The statement recording `writes`' results for the actor of `entityId`; run it in the writes'
 * transaction, or as the main query of their one statement. It is always their last part, and
 * it checks the actor's fence (Fences.ts): a process that lost the actor commits nothing.
 */
export const recordOperations = (
  sql: SqlClient.SqlClient,
  entityId: string,
  writes: ReadonlyArray<{ readonly write: CommittedWrite; readonly decision: { readonly reply: string } }>,
  fence: Fence
) =>
  sql`INSERT INTO actor_operations (operation_id, entity_id, result)
    SELECT operation_id, ${entityId}::text, result::jsonb
    FROM ${rowsTable(sql, writes.map(({ write, decision }) => [write.operationId, decision.reply]), OPERATION_COLUMNS)}
    WHERE ${fenceHeld(sql, fence)}`

/** The stored results of those of `operationIds` that committed already. */
export const operationResults = (sql: SqlClient.SqlClient, operationIds: ReadonlyArray<string>) =>
  sql<{ operation_id: string; result: unknown }>`
    SELECT operation_id, result FROM actor_operations WHERE operation_id IN ${sql.in(operationIds)}`.pipe(
    Effect.map((rows): ReadonlyMap<string, unknown> => new Map(rows.map((r) => [r.operation_id, r.result]))),
    Effect.orDie
  )

/**
 * Writes' statements (BatchStatements.ts) and their operation records, in order,
 * in one transaction. Round trips, not rows, are what a batch costs: a batch of
 * rows of one kind and nothing else (a burst of settings changes) is one
 * statement with its records, atomic on its own.
 */
export const commitDecided = (
  sql: SqlClient.SqlClient,
  entityId: string,
  writes: ReadonlyArray<{ readonly write: CommittedWrite; readonly decision: Parameters<typeof writeDecisions>[1][number] & { readonly reply: string } }>,
  fence: Fence
) => {
  const decisions = writes.map((w) => w.decision)
  const operations = recordOperations(sql, entityId, writes, fence)
  const rows = rowsInOneStatement(sql, entityId, decisions)
  if (rows !== undefined) {
    const parts = rows.map((part, i) => sql`${sql.literal(`part${i}`)} AS (${part})`)
    return Effect.asVoid(parts.length === 0 ? operations : sql`WITH ${sql.csv(parts)} ${operations}`)
  }
  return sql.withTransaction(Effect.andThen(
    Effect.provideService(writeDecisions(entityId, decisions), SqlClient.SqlClient, sql),
    operations
  ))
}
