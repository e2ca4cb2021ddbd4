import { Effect, Schema } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import { roomInGroupDms } from "./GroupDmLimit.ts"
import { DmChannelType } from "../../src/model/Dms.ts"
import { toUserPartial, type UserRow } from "../../src/model/Users.ts"
import type { DmStickers } from "./Messages.ts"
import type { Call, DmState, Recipient } from "./State.ts"

const decodeNicks = Schema.decodeUnknownSync(Schema.Record(Schema.String, Schema.String))
const decodeType = Schema.decodeUnknownSync(Schema.Literals([DmChannelType.DM, DmChannelType.GROUP_DM]))

/** The Postgres side of a DM channel's actor: its state, and each write it commits before answering. */
export const makeDmRepo = (sql: SqlClient.SqlClient) => {
  const load = (channelId: string): Effect.Effect<DmState | undefined> =>
    Effect.gen(function*() {
      const [channel] = yield* sql<{
        type: number
        name: string | null
        icon: string | null
        owner_id: string | null
        nicks: unknown
        last_message_id: string | null
      }>`SELECT c.type, c.name, d.icon, d.owner_id::text AS owner_id, d.nicks, d.last_message_id::text AS last_message_id
         FROM channels c JOIN dm_channels d ON d.channel_id = c.id WHERE c.id = ${channelId} AND c.guild_id IS NULL`
      if (channel === undefined) return undefined
      const rows = yield* sql<UserRow & { is_open: boolean }>`
        SELECT u.*, r.is_open FROM dm_recipients r JOIN users u ON u.id = r.user_id
        WHERE r.channel_id = ${channelId} ORDER BY r.added_at, r.user_id`
      const [call] = yield* sql<{ ringing: ReadonlyArray<string>; region: string | null }>`
        SELECT ringing::text[] AS ringing, region FROM dm_calls WHERE channel_id = ${channelId}`
      return {
        id: channelId,
        type: decodeType(channel.type),
        name: channel.name,
        icon: channel.icon,
        ownerId: channel.owner_id,
        nicks: decodeNicks(channel.nicks),
        lastMessageId: channel.last_message_id,
        recipients: new Map(rows.map((r): [string, Recipient] => [r.id, { user: toUserPartial(r), open: r.is_open }])),
        call: call === undefined ? undefined : { ringing: call.ringing, region: call.region }
      }
    }).pipe(Effect.orDie)

  const setOpen = (channelId: string, userIds: ReadonlyArray<string>, open: boolean): Effect.Effect<void, SqlError.SqlError> =>
    userIds.length === 0 ? Effect.void : Effect.asVoid(sql`
      UPDATE dm_recipients SET is_open = ${open} WHERE channel_id = ${channelId} AND user_id IN ${sql.in(userIds)}`)

  /** A new message is the channel's last; recipients who had closed it see it again. */
  const sent = (channelId: string, messageId: string, reopened: ReadonlyArray<string>) =>
    Effect.andThen(
      sql`UPDATE dm_channels SET last_message_id = ${messageId} WHERE channel_id = ${channelId}`,
      setOpen(channelId, reopened, true)
    )

  const updateGroup = (s: DmState) =>
    Effect.andThen(
      sql`UPDATE channels SET name = ${s.name} WHERE id = ${s.id}`,
      sql`UPDATE dm_channels SET icon = ${s.icon}, owner_id = ${s.ownerId}, nicks = ${JSON.stringify(s.nicks)}::jsonb
          WHERE channel_id = ${s.id}`
    )

  /** False, and nobody added, when the user is in as many group DMs as a user may be. */
  const addRecipient = (channelId: string, userId: string) =>
    Effect.gen(function*() {
      if (!(yield* roomInGroupDms(sql, [userId]))) return false
      yield* sql`INSERT INTO dm_recipients (channel_id, user_id, is_open) VALUES (${channelId}, ${userId}, true)
        ON CONFLICT (channel_id, user_id) DO UPDATE SET is_open = true`
      return true
    })

  const removeRecipient = (channelId: string, userId: string) =>
    sql`DELETE FROM dm_recipients WHERE channel_id = ${channelId} AND user_id = ${userId}`

  /** The last recipient left: the channel and its messages go. */
  const deleteChannel = (channelId: string) => sql`DELETE FROM channels WHERE id = ${channelId} AND guild_id IS NULL`

  const saveCall = (channelId: string, call: Call | undefined) =>
    call === undefined
      ? sql`DELETE FROM dm_calls WHERE channel_id = ${channelId}`
      : sql`INSERT INTO dm_calls (channel_id, ringing, region)
            VALUES (${channelId}, ${`{${call.ringing.join(",")}}`}::bigint[], ${call.region})
            ON CONFLICT (channel_id) DO UPDATE SET ringing = EXCLUDED.ringing, region = EXCLUDED.region`

  /** Whether either user blocked the other. */
  const blockedBetween = (a: string, b: string) =>
    Effect.map(
      sql<{ n: number }>`SELECT count(*)::int AS n FROM relationships
        WHERE type = 2 AND ((user_id = ${a} AND target_id = ${b}) OR (user_id = ${b} AND target_id = ${a}))`,
      ([row]) => (row?.n ?? 0) > 0
    ).pipe(Effect.orDie)

  /**
   * What `ids` name for `userId`'s message: stickers of packs they have (creator or
   * installed), and which are guild stickers. An id of neither is not a sticker they know.
   */
  const stickers = (userId: string, ids: ReadonlyArray<string>): Effect.Effect<DmStickers> =>
    ids.length === 0 ? Effect.succeed({ usable: new Map(), guild: new Set() }) : Effect.gen(function*() {
      const items = yield* sql<{ id: string; name: string; animated: boolean }>`
        SELECT i.id::text AS id, i.name, i.animated FROM pack_items i JOIN packs p ON p.id = i.pack_id
        WHERE i.id IN ${sql.in(ids)} AND p.type = 'sticker' AND (p.creator_id = ${userId}
          OR EXISTS (SELECT 1 FROM pack_installations n WHERE n.pack_id = p.id AND n.user_id = ${userId}))`
      const guild = yield* sql<{ id: string }>`SELECT id::text AS id FROM guild_stickers WHERE id IN ${sql.in(ids)}`
      return { usable: new Map(items.map((i) => [i.id, i])), guild: new Set(guild.map((g) => g.id)) }
    }).pipe(Effect.orDie)

  /** Runs `writes` in one transaction; a failure is the actor's to die of (the caller hears 503, the state is unchanged). */
  const commit = <A, E>(writes: Effect.Effect<A, E>) => sql.withTransaction(writes).pipe(Effect.orDie)

  return { load, setOpen, sent, updateGroup, addRecipient, removeRecipient, deleteChannel, saveCall, blockedBetween, stickers, commit }
}

export type DmRepo = ReturnType<typeof makeDmRepo>
