import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { unknown } from "../../../src/model/Errors.ts"
import { read, toSelf, write } from "../Definitions.ts"

export const listNotes = read("ListNotes", {}, Schema.Record(Schema.String, Schema.String), (state) =>
  Effect.succeed(Object.fromEntries([...state.notes].sort(([a], [b]) => (BigInt(a) < BigInt(b) ? -1 : 1)))))

/** No note on someone answers as the reference does: 404 UNKNOWN_USER. */
export const getNote = read("GetNote", { targetId: Schema.String }, Schema.Struct({ note: Schema.String }), (state, { targetId }) => {
  const note = state.notes.get(targetId)
  return note === undefined ? Effect.fail(unknown("USER")) : Effect.succeed({ note })
})

/**
 * PUT /users/@me/notes/{id}: blank text removes the note. The caller checked
 * that the target exists. The user's sessions hear USER_NOTE_UPDATE.
 */
export const setNote = write("SetNote", { targetId: Schema.String, note: Schema.String }, Schema.Null, (state, { targetId, note }, context) => {
  const removed = note.trim() === ""
  const notes = new Map(state.notes)
  if (removed) notes.delete(targetId)
  else notes.set(targetId, note)
  return Effect.succeed({
    next: { ...state, notes },
    reply: null,
    persist: Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.asVoid(
        removed
          ? sql`DELETE FROM user_notes WHERE user_id = ${context.userId} AND target_id = ${targetId}`
          : sql`INSERT INTO user_notes (user_id, target_id, note) VALUES (${context.userId}, ${targetId}, ${note})
                ON CONFLICT (user_id, target_id) DO UPDATE SET note = EXCLUDED.note, updated_at = now()`
      )),
    events: [toSelf(context, "USER_NOTE_UPDATE", { id: targetId, note: removed ? "" : note })]
  })
})

export const notesReads = [listNotes, getNote] as const
export const notesWrites = [setNote] as const
