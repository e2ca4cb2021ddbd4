import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import { MESSAGE_COLUMNS, type MessageRow, renderRows } from "../../shards/guild/StoredMessages.ts"
import { idArray } from "../../shards/guild/MessageRows.ts"
import type { MessageResponse } from "./Schemas.ts"
import type { EmbedType, HasKind, SearchMessagesRequest } from "./SearchApi.ts"

/** Hits counted at most: past it `total` says "at least this many", and the count stays one bounded scan. */
const MAX_COUNTED = 10_000

/** The text search expression of the index messages_content_search (schema/0024): the query must repeat it exactly. */
const DOCUMENT = "to_tsvector('simple'::regconfig, m.content)"
/** The expression and predicate of the index messages_link_hostnames (schema/0026), repeated to use it. */
const LINKED = "(m.content ~* 'https?://' OR m.embeds <> '[]'::jsonb)"
const HOSTNAMES = "message_link_hostnames(m.content, m.embeds)"

export interface SearchPage {
  readonly messages: ReadonlyArray<MessageResponse>
  readonly total: number
}

/**
 * POST /search/messages over Postgres full-text search, limited to the
 * channels the caller may read (decided by the guild actors beforehand).
 */
export class SearchRepo extends Context.Service<SearchRepo, {
  readonly search: (
    request: SearchMessagesRequest,
    channelIds: ReadonlyArray<string>,
    page: { readonly offset: number; readonly limit: number }
  ) => Effect.Effect<SearchPage>
}>()("guildhall/SearchRepo") {
  static readonly layer = Layer.effect(
    SearchRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const document = sql.literal(DOCUMENT)

      /** Any embed of one of `types` (the embed's own type), through messages_embed_types (schema/0026). */
      const embedOfType = (types: ReadonlyArray<EmbedType>): Fragment =>
        sql`(m.embeds <> '[]'::jsonb AND (${sql.or(types.map((type) => sql`m.embeds @> ${JSON.stringify([{ type }])}::jsonb`))}))`

      /** A link to any of `hostnames` (compared lower-cased, as the index keeps them). */
      const linkTo = (hostnames: ReadonlyArray<string>): Fragment =>
        sql`(${sql.literal(LINKED)} AND ${sql.literal(HOSTNAMES)} && ARRAY[${
          sql.join(", ", false)(hostnames.map((h) => sql`${h.toLowerCase()}`))
        }]::text[])`

      const hasCondition = (kind: HasKind): Fragment => {
        switch (kind) {
          case "image":
            return sql`jsonb_path_exists(m.attachments, '$[*] ? (@.content_type like_regex "^image/")')`
          case "video":
            return sql`jsonb_path_exists(m.attachments, '$[*] ? (@.content_type like_regex "^video/")')`
          case "sound":
            return sql`jsonb_path_exists(m.attachments, '$[*] ? (@.content_type like_regex "^audio/")')`
          case "file":
            return sql`m.attachments <> '[]'::jsonb`
          case "sticker":
            return sql`m.stickers <> '[]'::jsonb`
          case "embed":
            return sql`m.embeds <> '[]'::jsonb`
          case "link":
            return sql`m.content ~* 'https?://[^[:space:]]'`
          case "snapshot":
            return sql`m.snapshots IS NOT NULL`
          case "poll":
            // Polls are not sent on this server: no message has one.
            return sql`false`
        }
      }

      /** The words to find, as one tsquery: `content` and `contents` in web-search syntax, phrases as phrases. */
      const textQuery = (r: SearchMessagesRequest): Fragment | undefined => {
        const parts = [
          ...[r.content, ...(r.contents ?? [])].flatMap((text) =>
            text === undefined ? [] : [sql`websearch_to_tsquery('simple'::regconfig, ${text})`]
          ),
          ...(r.exact_phrases ?? []).map((phrase) => sql`phraseto_tsquery('simple'::regconfig, ${phrase})`)
        ]
        return parts.length === 0 ? undefined : sql.join(" && ", false)(parts)
      }

      const search = (r: SearchMessagesRequest, channelIds: ReadonlyArray<string>, page: { offset: number; limit: number }) =>
        Effect.gen(function*() {
          const wanted = [...(r.channel_id ?? []), ...(r.channel_ids ?? [])]
          const excluded = new Set(r.exclude_channel_id ?? [])
          const channels = channelIds.filter((id) => (wanted.length === 0 || wanted.includes(id)) && !excluded.has(id))
          if (channels.length === 0) return { messages: [], total: 0 }
          const query = textQuery(r)
          const conditions: Array<Fragment> = [
            sql`m.channel_id = ANY(${idArray(channels)}::bigint[])`,
            ...(query === undefined ? [] : [sql`m.content <> ''`, sql`${document} @@ (${query})`]),
            ...(r.max_id === undefined ? [] : [sql`m.id < ${r.max_id}`]),
            ...(r.min_id === undefined ? [] : [sql`m.id > ${r.min_id}`]),
            ...(r.author_id === undefined || r.author_id.length === 0 ? [] : [sql`m.author_id = ANY(${idArray(r.author_id)}::bigint[])`]),
            ...(r.exclude_author_id === undefined || r.exclude_author_id.length === 0
              ? []
              : [sql`m.author_id <> ALL(${idArray(r.exclude_author_id)}::bigint[])`]),
            ...(r.mentions === undefined || r.mentions.length === 0
              ? []
              : [sql`m.mention_user_ids <> '{}'`, sql`m.mention_user_ids @> ${idArray(r.mentions)}::bigint[]`]),
            ...(r.mention_everyone === undefined ? [] : [sql`m.mention_everyone = ${r.mention_everyone}`]),
            ...(r.pinned === undefined ? [] : [sql`m.pinned = ${r.pinned}`]),
            ...(r.has ?? []).map(hasCondition),
            ...(r.exclude_has ?? []).map((kind) => sql`NOT (${hasCondition(kind)})`),
            ...(r.embed_type === undefined || r.embed_type.length === 0 ? [] : [embedOfType(r.embed_type)]),
            ...(r.exclude_embed_type === undefined || r.exclude_embed_type.length === 0
              ? []
              : [sql`NOT ${embedOfType(r.exclude_embed_type)}`]),
            ...(r.link_hostname === undefined || r.link_hostname.length === 0 ? [] : [linkTo(r.link_hostname)]),
            ...(r.exclude_link_hostname === undefined || r.exclude_link_hostname.length === 0
              ? []
              : [sql`NOT ${linkTo(r.exclude_link_hostname)}`])
          ]
          const where = sql.and(conditions)
          const direction = sql.literal(r.sort_order === "asc" ? "ASC" : "DESC")
          const order = r.sort_by === "relevance" && query !== undefined
            ? sql`ts_rank(${document}, (${query})) DESC, m.id ${direction}`
            : sql`m.id ${direction}`
          const rows = yield* sql<MessageRow>`
            SELECT ${sql.literal(MESSAGE_COLUMNS)} FROM messages m WHERE ${where}
            ORDER BY ${order} LIMIT ${page.limit} OFFSET ${page.offset}`
          const [counted] = yield* sql<{ n: number }>`
            SELECT count(*)::int AS n FROM (SELECT 1 FROM messages m WHERE ${where} LIMIT ${MAX_COUNTED}) hits`
          return { messages: yield* renderRows(rows), total: counted?.n ?? 0 }
        }).pipe(Effect.provideService(SqlClient.SqlClient, sql), Effect.orDie)

      return SearchRepo.of({ search })
    })
  )
}
