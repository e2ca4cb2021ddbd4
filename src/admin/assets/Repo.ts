import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { PurgedKind } from "../../../shards/guild/operations/AdminAssets.ts"
import { GuildId } from "../../model/Ids.ts"

/** Where an expression id is, across guilds (no one actor holds that), and whether an image is still used. */
export class AssetsRepo extends Context.Service<AssetsRepo, {
  /** The emoji or sticker of this id and its guild; undefined when it is neither. */
  readonly find: (id: string) => Effect.Effect<{ readonly kind: PurgedKind; readonly guildId: GuildId } | undefined>
  /** Whether an expression (a guild's or a pack's) or someone's saved media still shows the image of `hash`. */
  readonly inUse: (hash: string) => Effect.Effect<boolean>
}>()("guildhall/AssetsRepo") {
  static readonly layer = Layer.effect(
    AssetsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return AssetsRepo.of({
        find: Effect.fn("AssetsRepo.find")(function*(id: string) {
          const rows = yield* sql<{ kind: string; guild_id: string }>`
            SELECT 'emoji' AS kind, guild_id FROM guild_emojis WHERE id = ${id}
            UNION ALL SELECT 'sticker' AS kind, guild_id FROM guild_stickers WHERE id = ${id}`
          const row = rows[0]
          if (row === undefined) return undefined
          const kind: PurgedKind = row.kind === "emoji" ? "emoji" : "sticker"
          return { kind, guildId: GuildId.make(String(row.guild_id)) }
        }, Effect.orDie),
        inUse: Effect.fn("AssetsRepo.inUse")((hash: string) =>
          sql`SELECT 1 FROM guild_emojis WHERE media_hash = ${hash}
              UNION ALL SELECT 1 FROM guild_stickers WHERE media_hash = ${hash}
              UNION ALL SELECT 1 FROM pack_items WHERE media_hash = ${hash}
              UNION ALL SELECT 1 FROM favorite_memes WHERE content_hash = ${hash} LIMIT 1`.pipe(
            Effect.map((rows) => rows.length > 0),
            Effect.orDie
          ))
      })
    })
  )
}
