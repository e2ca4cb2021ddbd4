import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { writeDecisions } from "./BatchStatements.ts"
import { rowsTable } from "./RowColumns.ts"
import type { CommittedWrite } from "./WriteBatches.ts"

const OPERATION_COLUMNS = ["operation_id", "result"]

/**
 * `actor_operations`: the result of every committed write by its operation id,
 * so a write delivered again answers what it answered the first time.
 */

/** The statement recording `writes`' results for the actor of `entityId`; run it in the writes' transaction. */
export const recordOperations = (
  sql: SqlClient.SqlClient,
  entityId: string,
  writes: ReadonlyArray<{ readonly write: CommittedWrite; readonly decision: { readonly reply: string } }>
) =>
  sql`INSERT INTO actor_operations (operation_id, entity_id, result)
    SELECT operation_id, ${entityId}::text, result::jsonb
    FROM ${rowsTable(sql, writes.map(({ write, decision }) => [write.operationId, decision.reply]), OPERATION_COLUMNS)}`

/** The stored results of those of `operationIds` that committed already. */
export const operationResults = (sql: SqlClient.SqlClient, operationIds: ReadonlyArray<string>) =>
  sql<{ operation_id: string; result: unknown }>`
    SELECT operation_id, result FROM actor_operations WHERE operation_id IN ${sql.in(operationIds)}`.pipe(
    Effect.map((rows): ReadonlyMap<string, unknown> => new Map(rows.map((r) => [r.operation_id, r.result]))),
    Effect.orDie
  )

/** Writes' statements (BatchStatements.ts) and their operation records, in order, in one transaction. */
export const commitDecided = (
  sql: SqlClient.SqlClient,
  entityId: string,
  writes: ReadonlyArray<{ readonly write: CommittedWrite; readonly decision: Parameters<typeof writeDecisions>[1][number] & { readonly reply: string } }>
) =>
  sql.withTransaction(Effect.andThen(
    Effect.provideService(writeDecisions(entityId, writes.map((w) => w.decision)), SqlClient.SqlClient, sql),
    recordOperations(sql, entityId, writes)
  ))
