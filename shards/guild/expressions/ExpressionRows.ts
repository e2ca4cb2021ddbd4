import { Effect, type Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import type { GuildEmoji, GuildSticker } from "../../../src/model/Expressions.ts"
import type { UserPartialResponse } from "../../../src/model/Users.ts"
import { loadPartialUsers } from "../../actors/PartialUsers.ts"

interface EmojiRow {
  readonly id: string
  readonly name: string
  readonly animated: boolean
  readonly media_hash: string
  readonly creator_id: string | null
}

interface StickerRow extends EmojiRow {
  readonly description: string
  readonly tags: ReadonlyArray<string>
}

/** Who made an expression whose creator's account is gone. */
export const DELETED_CREATOR: UserPartialResponse = {
  id: "0",
  username: "Deleted User",
  discriminator: "0000",
  global_name: null,
  avatar: null,
  avatar_color: null,
  flags: 0
}

export interface LoadedExpressions {
  readonly emojis: ReadonlyMap<string, GuildEmoji>
  readonly stickers: ReadonlyMap<string, GuildSticker>
}

/** A guild's emojis and stickers with their creators, for GuildRepo.load. */
export const loadExpressions = (
  guildId: string
): Effect.Effect<LoadedExpressions, SqlError.SqlError | Schema.SchemaError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const emojis = yield* sql<EmojiRow>`
      SELECT id, name, animated, media_hash, creator_id FROM guild_emojis WHERE guild_id = ${guildId} ORDER BY id`
    const stickers = yield* sql<StickerRow>`
      SELECT id, name, description, tags, animated, media_hash, creator_id
      FROM guild_stickers WHERE guild_id = ${guildId} ORDER BY id`
    const creatorIds = [...new Set([...emojis, ...stickers].flatMap((r) => (r.creator_id === null ? [] : [r.creator_id])))]
    const creators = yield* loadPartialUsers(creatorIds)
    const creatorOf = (row: EmojiRow) => (row.creator_id === null ? undefined : creators.get(row.creator_id)) ?? DELETED_CREATOR
    return {
      emojis: new Map(emojis.map((r): [string, GuildEmoji] => [r.id, {
        id: r.id,
        name: r.name,
        animated: r.animated,
        mediaHash: r.media_hash,
        creator: creatorOf(r)
      }])),
      stickers: new Map(stickers.map((r): [string, GuildSticker] => [r.id, {
        id: r.id,
        name: r.name,
        description: r.description,
        tags: r.tags,
        animated: r.animated,
        mediaHash: r.media_hash,
        creator: creatorOf(r)
      }]))
    }
  })
