import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { MESSAGE_COLUMNS, type MessageRow, renderRows } from "../../shards/guild/messages/StoredMessages.ts"
import { ChannelResponse } from "../model/Guilds.ts"
import type { MessageResponse } from "../model/Messages.ts"
import { toUserPartial, type UserRow } from "../model/Users.ts"
import type { UserPartialResponse } from "../model/Users.ts"
import { roomInGroupDms } from "../../shards/dm/GroupDmLimit.ts"
import { ChannelType } from "../model/Channels.ts"

const decodeChannel = Schema.decodeUnknownSync(ChannelResponse)

interface ListedRow {
  readonly id: string
  readonly type: number
  readonly name: string | null
  readonly icon: string | null
  readonly owner_id: string | null
  readonly nicks: unknown
  readonly last_message_id: string | null
  readonly recipient_ids: ReadonlyArray<string>
}

/**
 * DM channels as Postgres has them, for what does not need the channel's
 * actor: listings, membership checks for reads, and the rows of a new
 * channel (its actor loads them on first use). Whether a channel is a DM is
 * ChannelLookup's to say (src/messages/ChannelLookup.ts).
 */
export class DmsRepo extends Context.Service<DmsRepo, {
  readonly isRecipient: (channelId: string, userId: string) => Effect.Effect<boolean>
  /** The DM channels in the user's list, newest activity first. */
  readonly listFor: (userId: string) => Effect.Effect<ReadonlyArray<ChannelResponse>>
  /** The one-to-one DM of the two users, created (closed for both) when there is none yet. */
  readonly dmBetween: (a: string, b: string, newId: string) => Effect.Effect<string>
  /**
   * A new group DM owned by `ownerId`, still closed for everyone in it (its actor opens it and says so);
   * false, and nothing made, when one of them is in as many group DMs as a user may be.
   */
  readonly createGroup: (channelId: string, ownerId: string, recipientIds: ReadonlyArray<string>) => Effect.Effect<boolean>
  readonly user: (userId: string) => Effect.Effect<UserPartialResponse | undefined>
  /** Which of `userIds` are friends of `userId`. */
  readonly friendsAmong: (userId: string, userIds: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
  /** The newest message of each listed channel the user is in (null where there is none, or they are not in it). */
  readonly latestMessages: (userId: string, channelIds: ReadonlyArray<string>) => Effect.Effect<Record<string, MessageResponse | null>>
}>()("guildhall/DmsRepo") {
  static readonly layer = Layer.effect(
    DmsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const isRecipient = Effect.fn("DmsRepo.isRecipient")((channelId: string, userId: string) =>
        Effect.map(
          sql`SELECT 1 FROM dm_recipients WHERE channel_id = ${channelId} AND user_id = ${userId}`,
          (rows) => rows.length > 0
        ).pipe(Effect.orDie))

      const listFor = Effect.fn("DmsRepo.listFor")(function*(userId: string) {
        const rows = yield* sql<ListedRow>`
          SELECT c.id::text AS id, c.type, c.name, d.icon, d.owner_id::text AS owner_id, d.nicks,
            d.last_message_id::text AS last_message_id,
            ARRAY(SELECT o.user_id::text FROM dm_recipients o WHERE o.channel_id = c.id AND o.user_id <> ${userId}
                  ORDER BY o.added_at, o.user_id) AS recipient_ids
          FROM dm_recipients r JOIN channels c ON c.id = r.channel_id JOIN dm_channels d ON d.channel_id = c.id
          WHERE r.user_id = ${userId} AND r.is_open
          ORDER BY COALESCE(d.last_message_id, c.id) DESC`
        const ids = [...new Set(rows.flatMap((r) => r.recipient_ids))]
        const users = ids.length === 0 ? [] : yield* sql<UserRow>`SELECT * FROM users WHERE id IN ${sql.in(ids)}`
        const byId = new Map(users.map((u) => [u.id, toUserPartial(u)]))
        return rows.map((r) =>
          decodeChannel({
            id: r.id,
            type: r.type,
            last_message_id: r.last_message_id,
            recipients: r.recipient_ids.flatMap((id) => {
              const user = byId.get(id)
              return user === undefined ? [] : [user]
            }),
            ...(r.type === ChannelType.GROUP_DM
              ? { ...(r.name === null ? {} : { name: r.name }), icon: r.icon, owner_id: r.owner_id, nicks: r.nicks }
              : {})
          })
        )
      }, Effect.orDie)

      const dmBetween = Effect.fn("DmsRepo.dmBetween")(function*(a: string, b: string, newId: string) {
        const [low, high] = BigInt(a) < BigInt(b) ? [a, b] : [b, a]
        // Two first messages between the same pair at once make one channel, not two.
        yield* sql`SELECT pg_advisory_xact_lock(${low}::bigint # ${high}::bigint)`
        const [existing] = yield* sql<{ id: string }>`
          SELECT channel_id::text AS id FROM dm_channels WHERE pair_low = ${low} AND pair_high = ${high}`
        if (existing !== undefined) return existing.id
        yield* sql`INSERT INTO channels (id, guild_id, type) VALUES (${newId}, NULL, ${ChannelType.DM})`
        yield* sql`INSERT INTO dm_channels (channel_id, pair_low, pair_high) VALUES (${newId}, ${low}, ${high})`
        yield* sql`INSERT INTO dm_recipients (channel_id, user_id, is_open) VALUES (${newId}, ${a}, false), (${newId}, ${b}, false)`
        return newId
      }, sql.withTransaction, Effect.orDie)

      const createGroup = Effect.fn("DmsRepo.createGroup")(function*(channelId: string, ownerId: string, recipientIds: ReadonlyArray<string>) {
        if (!(yield* roomInGroupDms(sql, [ownerId, ...recipientIds]))) return false
        yield* sql`INSERT INTO channels (id, guild_id, type) VALUES (${channelId}, NULL, ${ChannelType.GROUP_DM})`
        yield* sql`INSERT INTO dm_channels (channel_id, owner_id) VALUES (${channelId}, ${ownerId})`
        const now = Date.now()
        // Join order: the owner first, then as listed.
        const row = (userId: string, i: number) => ({ channel_id: channelId, user_id: userId, is_open: false, added_at: new Date(now + i) })
        yield* sql`INSERT INTO dm_recipients ${sql.insert([row(ownerId, 0), ...recipientIds.map((id, i) => row(id, i + 1))])}`
        return true
      }, sql.withTransaction, Effect.orDie)

      const user = Effect.fn("DmsRepo.user")((userId: string) =>
        Effect.map(sql<UserRow>`SELECT * FROM users WHERE id = ${userId}`, ([row]) =>
          row === undefined ? undefined : toUserPartial(row)).pipe(Effect.orDie))

      const friendsAmong = Effect.fn("DmsRepo.friendsAmong")((userId: string, userIds: ReadonlyArray<string>) =>
        userIds.length === 0 ? Effect.succeed(new Set<string>()) : Effect.map(
          sql<{ id: string }>`SELECT target_id::text AS id FROM relationships
            WHERE user_id = ${userId} AND type = 1 AND target_id IN ${sql.in(userIds)}`,
          (rows) => new Set(rows.map((r) => r.id))
        ).pipe(Effect.orDie))

      const latestMessages = Effect.fn("DmsRepo.latestMessages")(function*(userId: string, channelIds: ReadonlyArray<string>) {
        const result: Record<string, MessageResponse | null> = {}
        for (const id of channelIds) result[id] = null
        if (channelIds.length === 0) return result
        const rows = yield* sql<MessageRow>`
          SELECT ${sql.literal(MESSAGE_COLUMNS)} FROM dm_recipients r
          CROSS JOIN LATERAL (SELECT * FROM messages WHERE channel_id = r.channel_id ORDER BY id DESC LIMIT 1) m
          WHERE r.user_id = ${userId} AND r.channel_id IN ${sql.in(channelIds)}`
        for (const message of yield* Effect.provideService(renderRows(rows), SqlClient.SqlClient, sql)) {
          result[message.channel_id] = message
        }
        return result
      }, Effect.orDie)

      return DmsRepo.of({ isRecipient, listFor, dmBetween, createGroup, user, friendsAmong, latestMessages })
    })
  )
}
