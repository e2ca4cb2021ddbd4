import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { unknown } from "../../../src/model/Errors.ts"
import { read, write } from "../Definitions.ts"
import { byId, laterThan, type SavedEntry } from "../Lists.ts"

/**
 * The user's saved messages ("bookmarks"): ids only. The caller checks that
 * the user may read a message before saving it, and renders the messages
 * when listing them. The reference sends no gateway event for either.
 *
 * An entry whose message or channel was deleted since stays until the user
 * unsaves it or the actor loads again: the list drops it when rendering, as
 * it drops a deleted message.
 */

const SavedId = Schema.Struct({ messageId: Schema.String, channelId: Schema.String })

/** Newest saved first (`limit` of them), as GET /users/@me/saved-messages shows them. */
export const listSaved = read("ListSaved", { limit: Schema.Int }, Schema.Array(SavedId), (state, { limit }) =>
  Effect.sync(() =>
    [...state.saved]
      .sort(([a, x], [b, y]) => y.savedAt - x.savedAt || byId(b, a))
      .slice(0, limit)
      .map(([messageId, { channelId }]) => ({ messageId, channelId }))))

/** POST /users/@me/saved-messages: saving a message again moves it to the top. */
export const saveMessage = write(
  "SaveMessage",
  { channelId: Schema.String, messageId: Schema.String },
  Schema.Null,
  (state, { channelId, messageId }, context) => {
    const entry: SavedEntry = { channelId, savedAt: laterThan(context.now, [...state.saved.values()].map((s) => s.savedAt)) }
    const saved = new Map(state.saved).set(messageId, entry)
    return Effect.succeed({
      next: { ...state, saved },
      reply: null,
      persist: Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.asVoid(sql`
          INSERT INTO saved_messages (user_id, message_id, channel_id, saved_at)
          VALUES (${context.userId}, ${messageId}, ${channelId}, ${new Date(entry.savedAt).toISOString()})
          ON CONFLICT (user_id, message_id) DO UPDATE SET saved_at = EXCLUDED.saved_at`)),
      events: []
    })
  }
)

/** DELETE /users/@me/saved-messages/{id}: 404 UNKNOWN_MESSAGE when it was not saved. */
export const unsaveMessage = write("UnsaveMessage", { messageId: Schema.String }, Schema.Null, (state, { messageId }, context) => {
  if (!state.saved.has(messageId)) return Effect.fail(unknown("MESSAGE"))
  const saved = new Map(state.saved)
  saved.delete(messageId)
  return Effect.succeed({
    next: { ...state, saved },
    reply: null,
    persist: Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.asVoid(sql`DELETE FROM saved_messages WHERE user_id = ${context.userId} AND message_id = ${messageId}`)),
    events: []
  })
})

export const savedReads = [listSaved] as const
export const savedWrites = [saveMessage, unsaveMessage] as const
