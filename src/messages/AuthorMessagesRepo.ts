import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { heldAmong } from "../../shards/actors/LegalHolds.ts"
import { NOT_HELD } from "../../shards/actors/LegalHolds.ts"
import { firstIdAt, type StoredMessageRef } from "../../shards/guild/messages/AuthorMessages.ts"
import type { GuildId } from "../model/Ids.ts"

/** A batch of one author's guild messages: the guild, and its messages by channel. */
export interface GuildBatch {
  readonly guildId: GuildId
  readonly messages: ReadonlyArray<StoredMessageRef>
}

/**
 * One author's messages as Postgres has them, for the author-scoped sweeps
 * (ban with delete_message_days, self-service deletion). Every query is a
 * range of the messages_author index (author_id, guild_id, id).
 */
export class AuthorMessagesRepo extends Context.Service<AuthorMessagesRepo, {
  /** The author's messages of the guild with an id of at least `fromId`. */
  readonly since: (guildId: string, authorId: string, fromId: bigint) => Effect.Effect<ReadonlyArray<StoredMessageRef>>
  /** Those of `messages` under a legal hold: a sweep keeps them (shards/actors/LegalHolds.ts). */
  readonly held: (messages: ReadonlyArray<StoredMessageRef>) => Effect.Effect<ReadonlyArray<string>>
  /**
   * What a ban with `delete_message_days` = `days` tells the guild's actor: the
   * author's messages of those days as Postgres has them (the actor adds those of
   * its windows) and the held ones among them; nothing for 0 days.
   */
  readonly forBan: (guildId: string, authorId: string, days: number) => Effect.Effect<{
    readonly storedMessages: ReadonlyArray<StoredMessageRef> | undefined
    readonly heldMessageIds: ReadonlyArray<string> | undefined
  }>
  /** Up to `limit` of the author's guild messages with an id up to `cutoffId`, all of the first guild that has any. */
  readonly nextBatch: (authorId: string, cutoffId: string, limit: number) => Effect.Effect<GuildBatch | undefined>
  /** How many guild messages with an id up to `cutoffId` the author has, in how many channels. */
  readonly count: (
    authorId: string,
    cutoffId: string
  ) => Effect.Effect<{ readonly channel_count: number; readonly message_count: number }>
}>()("guildhall/AuthorMessagesRepo") {
  static readonly layer = Layer.effect(
    AuthorMessagesRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const since = Effect.fn("AuthorMessagesRepo.since")((guildId: string, authorId: string, fromId: bigint) =>
        sql<{ channel_id: string; id: string }>`
          SELECT channel_id::text AS channel_id, id::text AS id FROM messages
          WHERE author_id = ${authorId} AND guild_id = ${guildId} AND id >= ${fromId.toString()}`.pipe(
          Effect.map((rows) => rows.map((r) => ({ channelId: r.channel_id, id: r.id }))),
          Effect.orDie
        ))

      const nextBatch = Effect.fn("AuthorMessagesRepo.nextBatch")(function*(authorId: string, cutoffId: string, limit: number) {
        // The first guild of the index's order with messages left, then a batch of it.
        const first = yield* sql<{ guild_id: GuildId }>`
          SELECT guild_id::text AS guild_id FROM messages
          WHERE author_id = ${authorId} AND guild_id IS NOT NULL AND id <= ${cutoffId} AND ${sql.literal(NOT_HELD)}
          ORDER BY guild_id LIMIT 1`
        const guildId = first[0]?.guild_id
        if (guildId === undefined) return undefined
        const rows = yield* sql<{ channel_id: string; id: string; content: string }>`
          SELECT channel_id::text AS channel_id, id::text AS id, content FROM messages
          WHERE author_id = ${authorId} AND guild_id = ${guildId} AND id <= ${cutoffId} AND ${sql.literal(NOT_HELD)}
          ORDER BY id LIMIT ${limit}`
        return { guildId, messages: rows.map((r) => ({ channelId: r.channel_id, id: r.id, content: r.content })) }
      }, Effect.orDie)

      const count = Effect.fn("AuthorMessagesRepo.count")((authorId: string, cutoffId: string) =>
        sql<{ channel_count: number; message_count: number }>`
          SELECT count(DISTINCT channel_id)::int AS channel_count, count(*)::int AS message_count FROM messages
          WHERE author_id = ${authorId} AND guild_id IS NOT NULL AND id <= ${cutoffId} AND ${sql.literal(NOT_HELD)}`.pipe(
          Effect.map((rows) => rows[0] ?? { channel_count: 0, message_count: 0 }),
          Effect.orDie
        ))

      const held = (messages: ReadonlyArray<StoredMessageRef>) =>
        heldAmong(messages.map((m) => m.id)).pipe(Effect.map((ids) => [...ids]), Effect.provideService(SqlClient.SqlClient, sql))

      const forBan = Effect.fn("AuthorMessagesRepo.forBan")(function*(guildId: string, authorId: string, days: number) {
        if (days <= 0) return { storedMessages: undefined, heldMessageIds: undefined }
        const storedMessages = yield* since(guildId, authorId, firstIdAt(Date.now() - days * 24 * 3600_000))
        return { storedMessages, heldMessageIds: yield* held(storedMessages) }
      })

      return AuthorMessagesRepo.of({ since, held, forBan, nextBatch, count })
    })
  )
}
