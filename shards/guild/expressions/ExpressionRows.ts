import { Effect, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import type { GuildEmoji, GuildSticker } from "../../../src/model/Expressions.ts"
import type { UserPartialResponse } from "../../../src/model/Users.ts"
import { loadPartialUsers } from "../../actors/PartialUsers.ts"

/** An emoji's columns as `loadExpressions` selects them, each with the schema that decodes it. */
const EmojiRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  animated: Schema.Boolean,
  media_hash: Schema.String,
  creator_id: Schema.NullOr(Schema.String)
})
type EmojiRow = typeof EmojiRow.Type

/** A sticker's columns: an emoji's, and its description and tags. */
const StickerRow = Schema.Struct({
  ...EmojiRow.fields,
  description: Schema.String,
  tags: Schema.Array(Schema.String)
})

const decodeEmojis = Schema.decodeUnknownEffect(Schema.Array(EmojiRow))
const decodeStickers = Schema.decodeUnknownEffect(Schema.Array(StickerRow))

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
    const emojis = yield* decodeEmojis(yield* sql`
      SELECT id, name, animated, media_hash, creator_id FROM guild_emojis WHERE guild_id = ${guildId} ORDER BY id`)
    const stickers = yield* decodeStickers(yield* sql`
      SELECT id, name, description, tags, animated, media_hash, creator_id
      FROM guild_stickers WHERE guild_id = ${guildId} ORDER BY id`)
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
