import { Effect, Schema } from "effect"
import { deleteUnheldMessages } from "../../actors/HeldDeletes.ts"
import { everyone, tell } from "../Access.ts"
import { write } from "../Definitions.ts"

/**
 * Operators' deletes of DM messages (POST /admin/messages/delete and the
 * operators' jobs): the operator is no recipient and needs to be none (the
 * route's ACL was checked over HTTP). `messages` are `authorId`'s, as the
 * caller read them from Postgres, none under a legal hold; each recipient is
 * told of each, as when its author deletes it.
 */
export const adminDeleteDmMessages = write(
  "AdminDelete",
  {
    authorId: Schema.String,
    messages: Schema.Array(Schema.Struct({ id: Schema.String, content: Schema.String }))
  },
  Schema.Null,
  (s, { authorId, messages }) =>
    Effect.succeed({
      next: s,
      reply: null,
      persist: deleteUnheldMessages(s.id, messages.map((m) => m.id)),
      events: messages.map((m) =>
        tell(everyone(s), "MESSAGE_DELETE", { id: m.id, channel_id: s.id, content: m.content, author_id: authorId }))
    })
)

export const adminMessageWrites = [adminDeleteDmMessages] as const
