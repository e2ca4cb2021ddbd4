import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { PageQuery } from "../../shards/guild/messages/MessagePages.ts"
import { MESSAGE_COLUMNS, type MessageRow, renderRows } from "../../shards/guild/messages/StoredMessages.ts"
import type { MessageResponse } from "../model/Messages.ts"

/**
 * Messages as Postgres has them, for what the guild actor's windows do not
 * hold (older pages, older messages). Callers check permissions with the
 * actor first. Every page is one range scan of the (channel_id, id) key.
 */
export class MessagesRepo extends Context.Service<MessagesRepo, {
  /** A page, newest first (the same rules as the window: shards/guild/MessagePages.ts). */
  readonly page: (channelId: string, query: PageQuery) => Effect.Effect<ReadonlyArray<MessageResponse>>
  readonly find: (channelId: string, messageId: string) => Effect.Effect<MessageResponse | undefined>
}>()("guildhall/MessagesRepo") {
  static readonly layer = Layer.effect(
    MessagesRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const columns = sql.literal(MESSAGE_COLUMNS)
      const render = (rows: ReadonlyArray<MessageRow>) => Effect.provideService(renderRows(rows), SqlClient.SqlClient, sql)

      /** Newest first: the `limit` newest below `before` (inclusive with `orAt`), all when undefined. */
      const older = (channelId: string, before: string | undefined, limit: number, orAt = false) =>
        before === undefined
          ? sql<MessageRow>`SELECT ${columns} FROM messages m WHERE m.channel_id = ${channelId} ORDER BY m.id DESC LIMIT ${limit}`
          : orAt
          ? sql<MessageRow>`SELECT ${columns} FROM messages m WHERE m.channel_id = ${channelId} AND m.id <= ${before}
                            ORDER BY m.id DESC LIMIT ${limit}`
          : sql<MessageRow>`SELECT ${columns} FROM messages m WHERE m.channel_id = ${channelId} AND m.id < ${before}
                            ORDER BY m.id DESC LIMIT ${limit}`

      /** Newest first: the `limit` oldest above `after`. */
      const newer = (channelId: string, after: string, limit: number) =>
        Effect.map(
          sql<MessageRow>`SELECT ${columns} FROM messages m WHERE m.channel_id = ${channelId} AND m.id > ${after}
                          ORDER BY m.id ASC LIMIT ${limit}`,
          (rows) => [...rows].reverse()
        )

      const page = Effect.fn("MessagesRepo.page")(function*(channelId: string, query: PageQuery) {
        if (query.around !== undefined) {
          const before = yield* older(channelId, query.around, Math.ceil(query.limit / 2), true)
          const after = query.limit < 2 ? [] : yield* newer(channelId, query.around, Math.floor(query.limit / 2))
          return yield* render([...after, ...before])
        }
        if (query.after !== undefined) return yield* render(yield* newer(channelId, query.after, query.limit))
        return yield* render(yield* older(channelId, query.before, query.limit))
      }, Effect.orDie)

      const find = Effect.fn("MessagesRepo.find")(function*(channelId: string, messageId: string) {
        const rows = yield* sql<MessageRow>`
          SELECT ${columns} FROM messages m WHERE m.channel_id = ${channelId} AND m.id = ${messageId}`
        const [message] = yield* render(rows)
        return message
      }, Effect.orDie)

      return MessagesRepo.of({ page, find })
    })
  )
}
