import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/** One of the author's messages as a job batch deletes it: where, and what it said (for the events). */
export interface AuthoredMessage {
  readonly channelId: string
  readonly id: string
  readonly content: string
}

/**
 * What the operators' message routes read from Postgres beyond MessagesRepo:
 * an author's messages (the messages_author index) and attachments.
 */
export class AdminMessageReads extends Context.Service<AdminMessageReads, {
  /** How many messages the author has, guild and DM, in how many channels. */
  readonly countByAuthor: (authorId: string) => Effect.Effect<{ readonly channel_count: number; readonly message_count: number }>
  /** Those of `refs` that exist and are the author's. */
  readonly authoredAmong: (
    authorId: string,
    refs: ReadonlyArray<{ readonly channelId: string; readonly messageId: string }>
  ) => Effect.Effect<ReadonlyArray<AuthoredMessage>>
  /** The message of the channel with the attachment `attachmentId` named `filename`. */
  readonly byAttachment: (channelId: string, attachmentId: string, filename: string) => Effect.Effect<string | undefined>
}>()("guildhall/AdminMessageReads") {
  static readonly layer = Layer.effect(
    AdminMessageReads,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const countByAuthor = Effect.fn("AdminMessageReads.countByAuthor")((authorId: string) =>
        sql<{ channel_count: number; message_count: number }>`
          SELECT count(DISTINCT channel_id)::int AS channel_count, count(*)::int AS message_count
          FROM messages WHERE author_id = ${authorId}`.pipe(
          Effect.map((rows) => rows[0] ?? { channel_count: 0, message_count: 0 }),
          Effect.orDie
        ))

      const authoredAmong = Effect.fn("AdminMessageReads.authoredAmong")((
        authorId: string,
        refs: ReadonlyArray<{ readonly channelId: string; readonly messageId: string }>
      ) =>
        refs.length === 0
          ? Effect.succeed([])
          : sql<{ channel_id: string; id: string; content: string }>`
              SELECT m.channel_id::text AS channel_id, m.id::text AS id, m.content
              FROM jsonb_to_recordset(${JSON.stringify(refs.map((r) => ({ channel_id: r.channelId, id: r.messageId })))}::jsonb)
                AS e (channel_id bigint, id bigint)
              JOIN messages m ON m.channel_id = e.channel_id AND m.id = e.id
              WHERE m.author_id = ${authorId}`.pipe(
              Effect.map((rows) => rows.map((r) => ({ channelId: r.channel_id, id: r.id, content: r.content }))),
              Effect.orDie
            ))

      const byAttachment = Effect.fn("AdminMessageReads.byAttachment")((channelId: string, attachmentId: string, filename: string) =>
        sql<{ id: string }>`
          SELECT id::text AS id FROM messages
          WHERE channel_id = ${channelId} AND attachments @> ${JSON.stringify([{ id: attachmentId, filename }])}::jsonb
          ORDER BY id LIMIT 1`.pipe(Effect.map((rows) => rows[0]?.id), Effect.orDie))

      return AdminMessageReads.of({ countByAuthor, authoredAmong, byAttachment })
    })
  )
}
