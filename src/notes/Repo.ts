import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/** `user_notes`: what a user wrote about others, one note per target. */
export class NotesRepo extends Context.Service<NotesRepo, {
  readonly list: (userId: string) => Effect.Effect<Record<string, string>>
  readonly get: (userId: string, targetId: string) => Effect.Effect<string | undefined>
  readonly set: (userId: string, targetId: string, note: string) => Effect.Effect<void>
  readonly remove: (userId: string, targetId: string) => Effect.Effect<void>
}>()("guildhall/NotesRepo") {
  static readonly layer = Layer.effect(
    NotesRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return NotesRepo.of({
        list: Effect.fn("NotesRepo.list")((userId) =>
          sql<{ target_id: string; note: string }>`
            SELECT target_id, note FROM user_notes WHERE user_id = ${userId} ORDER BY target_id`.pipe(
            Effect.map((rows) => Object.fromEntries(rows.map((r) => [String(r.target_id), r.note]))),
            Effect.orDie
          )),
        get: Effect.fn("NotesRepo.get")((userId, targetId) =>
          sql<{ note: string }>`SELECT note FROM user_notes WHERE user_id = ${userId} AND target_id = ${targetId}`.pipe(
            Effect.map((rows) => rows[0]?.note),
            Effect.orDie
          )),
        set: Effect.fn("NotesRepo.set")((userId, targetId, note) =>
          sql`
            INSERT INTO user_notes (user_id, target_id, note) VALUES (${userId}, ${targetId}, ${note})
            ON CONFLICT (user_id, target_id) DO UPDATE SET note = EXCLUDED.note, updated_at = now()`.pipe(
            Effect.asVoid,
            Effect.orDie
          )),
        remove: Effect.fn("NotesRepo.remove")((userId, targetId) =>
          sql`DELETE FROM user_notes WHERE user_id = ${userId} AND target_id = ${targetId}`.pipe(Effect.asVoid, Effect.orDie))
      })
    })
  )
}
