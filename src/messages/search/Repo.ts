import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import { MESSAGE_COLUMNS, type MessageRow, renderRows } from "../../../shards/guild/messages/StoredMessages.ts"
import { idArray } from "../../../shards/guild/messages/MessageRows.ts"
import type { MessageResponse } from "../../model/Messages.ts"
import type { SearchMessagesRequest } from "./Api.ts"
import { messageFilters } from "./Filters.ts"

/** Hits counted at most: past it `total` says "at least this many", and the count stays one bounded scan. */
const MAX_COUNTED = 10_000

/** The text search expression of the index messages_content_search (schema/0024): the query must repeat it exactly. */
const DOCUMENT = "to_tsvector('simple'::regconfig, m.content)"

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

      const search = Effect.fn("SearchRepo.search")(function*(
        r: SearchMessagesRequest,
        channelIds: ReadonlyArray<string>,
        page: { offset: number; limit: number }
      ) {
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
          ...messageFilters(sql, r)
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
      }, Effect.provideService(SqlClient.SqlClient, sql), Effect.orDie)

      return SearchRepo.of({ search })
    })
  )
}
