import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { roomInGroupDms } from "../../shards/dm/GroupDmLimit.ts"
import type { MessageStickerResponse } from "../model/Messages.ts"
import { ChannelType } from "../model/Channels.ts"

/**
 * What a DM channel's writes need of Postgres besides the channel, which
 * their actor does not keep: the HTTP side reads it and hands it in with the
 * write (shards/dm/operations/), so the actor decides from its state and the
 * write alone.
 */
export class DmWriteInputs extends Context.Service<DmWriteInputs, {
  /** Whether a block (either way) stands between `actorId` and the other recipient of a one-to-one DM. */
  readonly blocked: (channelId: string, actorId: string) => Effect.Effect<boolean>
  /**
   * What `ids` name for `userId`'s message: stickers of packs they have (creator or
   * installed), and which are guild stickers. An id of neither is not a sticker they know.
   */
  readonly stickers: (userId: string, ids: ReadonlyArray<string>) => Effect.Effect<{
    readonly usable: ReadonlyArray<MessageStickerResponse>
    readonly guild: ReadonlyArray<string>
  }>
  /** How many messages of the channel are pinned, and the two pinned last. */
  readonly pins: (channelId: string) => Effect.Effect<{
    readonly count: number
    readonly newest: ReadonlyArray<{ readonly messageId: string; readonly pinnedAt: string }>
  }>
  /** Whether `userId` has room for one more group DM. */
  readonly roomInGroupDms: (userId: string) => Effect.Effect<boolean>
}>()("guildhall/DmWriteInputs") {
  static readonly layer = Layer.effect(
    DmWriteInputs,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return DmWriteInputs.of({
        blocked: Effect.fn("DmWriteInputs.blocked")((channelId, actorId) =>
          Effect.map(
            sql<{ n: number }>`SELECT count(*)::int AS n FROM channels c
              JOIN dm_recipients r ON r.channel_id = c.id AND r.user_id <> ${actorId}
              JOIN relationships x ON x.type = 2
                AND ((x.user_id = ${actorId} AND x.target_id = r.user_id) OR (x.user_id = r.user_id AND x.target_id = ${actorId}))
              WHERE c.id = ${channelId} AND c.type = ${ChannelType.DM}`,
            ([row]) => (row?.n ?? 0) > 0
          ).pipe(Effect.orDie)),
        stickers: Effect.fn("DmWriteInputs.stickers")(function*(userId, ids) {
          if (ids.length === 0) return { usable: [], guild: [] }
          const usable = yield* sql<{ id: string; name: string; animated: boolean }>`
            SELECT i.id::text AS id, i.name, i.animated FROM pack_items i JOIN packs p ON p.id = i.pack_id
            WHERE i.id IN ${sql.in(ids)} AND p.type = 'sticker' AND (p.creator_id = ${userId}
              OR EXISTS (SELECT 1 FROM pack_installations n WHERE n.pack_id = p.id AND n.user_id = ${userId}))`
          const guild = yield* sql<{ id: string }>`SELECT id::text AS id FROM guild_stickers WHERE id IN ${sql.in(ids)}`
          return { usable: usable.map((i) => ({ id: i.id, name: i.name, animated: i.animated })), guild: guild.map((g) => g.id) }
        }, Effect.orDie),
        pins: Effect.fn("DmWriteInputs.pins")((channelId) =>
          Effect.map(
            sql<{ id: string; pinned_at: Date | string | null; n: number }>`
              SELECT id::text AS id, pinned_at, count(*) OVER ()::int AS n FROM messages
              WHERE channel_id = ${channelId} AND pinned ORDER BY pinned_at DESC NULLS LAST LIMIT 2`,
            (rows) => ({
              count: rows[0]?.n ?? 0,
              newest: rows.flatMap((r) => (r.pinned_at === null ? [] : [{ messageId: r.id, pinnedAt: new Date(r.pinned_at).toISOString() }]))
            })
          ).pipe(Effect.orDie)),
        roomInGroupDms: Effect.fn("DmWriteInputs.roomInGroupDms")((userId) => roomInGroupDms(sql, [userId]))
      })
    })
  )
}
