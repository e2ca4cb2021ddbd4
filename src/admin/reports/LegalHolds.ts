import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Legal holds on a report's evidence (schema/0034_legal_holds.sql): the
 * reported message and the context captured with it. Every deletion path asks
 * shards/actors/LegalHolds.ts before deleting and keeps what is held.
 */
export class LegalHolds extends Context.Service<LegalHolds, {
  /** The report's held message ids (empty: no hold). */
  readonly of: (reportId: string) => Effect.Effect<ReadonlyArray<string>>
  readonly hold: (reportId: string, messageIds: ReadonlyArray<string>) => Effect.Effect<void>
  readonly release: (reportId: string) => Effect.Effect<void>
}>()("guildhall/LegalHolds") {
  static readonly layer = Layer.effect(
    LegalHolds,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return LegalHolds.of({
        of: (reportId) =>
          sql<{ message_id: string }>`SELECT message_id::text AS message_id FROM legal_hold_messages
            WHERE report_id = ${reportId} ORDER BY message_id`.pipe(Effect.map((rows) => rows.map((r) => r.message_id)), Effect.orDie),
        hold: (reportId, messageIds) =>
          sql`INSERT INTO legal_hold_messages (message_id, report_id)
            SELECT unnest(${`{${messageIds.join(",")}}`}::bigint[]), ${reportId} ON CONFLICT DO NOTHING`.pipe(Effect.asVoid, Effect.orDie),
        release: (reportId) => sql`DELETE FROM legal_hold_messages WHERE report_id = ${reportId}`.pipe(Effect.asVoid, Effect.orDie)
      })
    })
  )
}
