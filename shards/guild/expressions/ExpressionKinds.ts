import { Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import type {
  GuildEmoji,
  GuildEmojiResponse,
  GuildSticker,
  GuildStickerResponse
} from "../../../src/model/Expressions.ts"
import { NotFound } from "../../../src/model/Errors.ts"
import type { LimitKey } from "../../../src/model/Limits.ts"
import type { UserPartialResponse } from "../../../src/model/Users.ts"
import type { GuildState } from "../State.ts"

type Sql<A = void> = Effect.Effect<A, SqlError.SqlError, SqlClient.SqlClient>

/**
 * What differs between emojis and stickers. The operations on them (create, bulk create, update,
 * delete, list) are one logic built from this description (operations/Expressions.ts).
 */
export interface ExpressionKind<Item extends GuildEmoji, New, View> {
  readonly all: (state: GuildState) => ReadonlyMap<string, Item>
  readonly withAll: (state: GuildState, items: ReadonlyMap<string, Item>) => GuildState
  readonly make: (fields: New, creator: UserPartialResponse) => Item
  readonly view: (item: Item) => View
  readonly unknown: () => NotFound
  /** The instance's limit on them (src/platform/Limits.ts; MORE_ features raise it there), and the feature lifting it. */
  readonly limitKey: LimitKey
  readonly features: { readonly unlimited: string }
  /** Which existing items count against the same limit as `item`, and that limit's error code. */
  readonly countsWith: (item: New, other: Item) => boolean
  readonly limitCode: (item: New) => string
  /** AuditLogActionType numbers (part C). */
  readonly actions: { readonly create: number; readonly update: number; readonly delete: number }
  /** The gateway event carrying the guild's whole list, and that list's key in it. */
  readonly event: { readonly type: string; readonly listKey: string }
  readonly insert: (item: Item, guildId: string, creatorId: string, now: number) => Sql
  readonly update: (item: Item) => Sql
  readonly remove: (id: string) => Sql
}

const sqlTags = (tags: ReadonlyArray<string>) => JSON.stringify(tags)

export const emojiView = (e: GuildEmoji): GuildEmojiResponse => ({ id: e.id, name: e.name, animated: e.animated, nsfw: false })
export const stickerView = (s: GuildSticker): GuildStickerResponse => ({
  id: s.id,
  name: s.name,
  description: s.description,
  tags: s.tags,
  animated: s.animated,
  nsfw: false
})

type NewEmoji = Omit<GuildEmoji, "creator">
type NewSticker = Omit<GuildSticker, "creator">

/** Static and animated emojis count separately, each against the guild's limit. */
export const EmojiKind: ExpressionKind<GuildEmoji, NewEmoji, GuildEmojiResponse> = {
  all: (state) => state.emojis,
  withAll: (state, emojis) => ({ ...state, emojis }),
  make: (fields, creator) => ({ ...fields, creator }),
  view: emojiView,
  unknown: () => new NotFound({ code: "UNKNOWN_EMOJI", message: "Unknown emoji" }),
  limitKey: "max_guild_emojis",
  features: { unlimited: "UNLIMITED_EMOJI" },
  countsWith: (item, other) => other.animated === item.animated,
  limitCode: (item) => (item.animated ? "MAX_ANIMATED_EMOJIS" : "MAX_EMOJIS"),
  actions: { create: 60, update: 61, delete: 62 },
  event: { type: "GUILD_EMOJIS_UPDATE", listKey: "emojis" },
  insert: (e, guildId, creatorId, now) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`INSERT INTO guild_emojis (id, guild_id, name, animated, media_hash, creator_id, created_at)
          VALUES (${e.id}, ${guildId}, ${e.name}, ${e.animated}, ${e.mediaHash}, ${creatorId}, ${new Date(now).toISOString()})`),
  update: (e) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE guild_emojis SET name = ${e.name} WHERE id = ${e.id}`),
  remove: (id) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DELETE FROM guild_emojis WHERE id = ${id}`)
}

/** All stickers count against one limit. */
export const StickerKind: ExpressionKind<GuildSticker, NewSticker, GuildStickerResponse> = {
  all: (state) => state.stickers,
  withAll: (state, stickers) => ({ ...state, stickers }),
  make: (fields, creator) => ({ ...fields, creator }),
  view: stickerView,
  unknown: () => new NotFound({ code: "UNKNOWN_STICKER", message: "Unknown sticker" }),
  limitKey: "max_guild_stickers",
  features: { unlimited: "UNLIMITED_STICKERS" },
  countsWith: () => true,
  limitCode: () => "MAX_STICKERS",
  actions: { create: 90, update: 91, delete: 92 },
  event: { type: "GUILD_STICKERS_UPDATE", listKey: "stickers" },
  insert: (s, guildId, creatorId, now) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`INSERT INTO guild_stickers (id, guild_id, name, description, tags, animated, media_hash, creator_id, created_at)
          VALUES (${s.id}, ${guildId}, ${s.name}, ${s.description}, ARRAY(SELECT jsonb_array_elements_text(${sqlTags(s.tags)}::jsonb)),
                  ${s.animated}, ${s.mediaHash}, ${creatorId}, ${new Date(now).toISOString()})`),
  update: (s) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`UPDATE guild_stickers SET name = ${s.name}, description = ${s.description},
                 tags = ARRAY(SELECT jsonb_array_elements_text(${sqlTags(s.tags)}::jsonb)) WHERE id = ${s.id}`),
  remove: (id) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DELETE FROM guild_stickers WHERE id = ${id}`)
}
