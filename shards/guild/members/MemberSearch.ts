import { Schema } from "effect"
import { type MemberSearchRequest, type MemberSearchResponse, MemberSearchResult } from "../../../src/model/Members.ts"
import { type Indexed, NONE, type SearchIndex, searchIndex } from "./SearchIndex.ts"
import type { GuildState } from "../State.ts"

// Member search over the actor's memory, on the guild's index (SearchIndex.ts): a search is a
// few string scans and one pass over the members they found, on 10,000 members a small
// fraction of a millisecond.

/**
 * Bounds on the candidates kept per index: searches come again (the next page,
 * another moderator) and grow letter by letter as they are typed, and checking
 * thousands of names per search was most of its cost on a big guild.
 */
const FOUND_QUERIES = 64
const FOUND_POSITIONS = 1 << 18

/** Keeps `positions` as the candidates of `query`, forgetting the oldest beyond the bounds. */
const remember = (index: SearchIndex, query: string, positions: Int32Array): Int32Array => {
  if (positions.length > FOUND_POSITIONS) return positions
  let kept = positions.length
  for (const other of index.found.values()) kept += other.length
  for (const [oldest, other] of index.found) {
    if (index.found.size < FOUND_QUERIES && kept <= FOUND_POSITIONS) break
    index.found.delete(oldest)
    kept -= other.length
  }
  index.found.set(query, positions)
  return positions
}

/**
 * The positions (ascending) of the members with a name containing `query`. A
 * longer query's members are among those of any query inside it, so the names
 * checked are the fewest of: its rarest two-letter piece, or a query inside it
 * found before ("membe" when "member" is typed).
 */
const candidates = (index: SearchIndex, query: string): Int32Array => {
  if (query.length <= 2) return index.grams.get(query) ?? NONE
  const known = index.found.get(query)
  if (known !== undefined) {
    // Now the newest: the last to be forgotten.
    index.found.delete(query)
    index.found.set(query, known)
    return known
  }
  let fewest: Int32Array = NONE
  for (let i = 0; i + 2 <= query.length; i++) {
    const postings = index.grams.get(query.slice(i, i + 2))
    if (postings === undefined) return NONE
    if (i === 0 || postings.length < fewest.length) fewest = postings
  }
  for (const [inside, positions] of index.found) {
    if (positions.length < fewest.length && query.includes(inside)) fewest = positions
  }
  return remember(index, query, fewest.filter((k) => {
    const e = index.entries[k]
    return e !== undefined && (e.username.includes(query) || e.globalName.includes(query) || e.nick.includes(query))
  }))
}

const rankOf = (name: string, query: string): number => {
  const at = name.indexOf(query)
  return at < 0 ? 3 : name.length === query.length ? 0 : at === 0 ? 1 : 2
}

/** 0 an exact name, 1 a name starting with the query, 2 containing it, 3 no match (no allocation: it runs per member). */
const rank = (entry: Indexed, query: string): number =>
  Math.min(rankOf(entry.username, query), rankOf(entry.globalName, query), rankOf(entry.nick, query))

/** The filters of `request` as one predicate; undefined when there are none (the common case). */
const matcher = (request: MemberSearchRequest): ((e: Indexed) => boolean) | undefined => {
  const roles = request.role_ids ?? []
  const sources = request.join_source_type === undefined ? undefined : new Set<number>(request.join_source_type)
  const codes = request.source_invite_code === undefined ? undefined : new Set(request.source_invite_code)
  const filtered = roles.length > 0 || sources !== undefined || codes !== undefined || request.is_bot !== undefined ||
    request.joined_at_gte !== undefined || request.joined_at_lte !== undefined ||
    request.user_created_at_gte !== undefined || request.user_created_at_lte !== undefined
  if (!filtered) return undefined
  return (e: Indexed): boolean =>
    (request.is_bot === undefined || e.isBot === request.is_bot) &&
    (request.joined_at_gte === undefined || e.joinedAt >= request.joined_at_gte) &&
    (request.joined_at_lte === undefined || e.joinedAt <= request.joined_at_lte) &&
    (request.user_created_at_gte === undefined || e.createdAt >= request.user_created_at_gte) &&
    (request.user_created_at_lte === undefined || e.createdAt <= request.user_created_at_lte) &&
    (sources === undefined || (e.profile.joinSourceType !== null && sources.has(e.profile.joinSourceType))) &&
    (codes === undefined || (e.profile.sourceInviteCode !== null && codes.has(e.profile.sourceInviteCode))) &&
    roles.every((roleId) => e.member.roles.includes(roleId))
}

const renderResult = (guildId: string, e: Indexed): MemberSearchResult => ({
  id: `${guildId}:${e.member.user.id}`,
  guild_id: guildId,
  user_id: e.member.user.id,
  username: e.member.user.username,
  discriminator: e.member.user.discriminator.padStart(4, "0"),
  global_name: e.member.user.global_name,
  nickname: e.member.nick ?? null,
  role_ids: e.member.roles,
  joined_at: e.joinedAt,
  supplemental: {
    join_source_type: e.profile.joinSourceType,
    source_invite_code: e.profile.sourceInviteCode,
    inviter_id: e.profile.inviterId
  },
  is_bot: e.isBot
})

// A member's result and its JSON are made once per index: searches return the same members again and again.
const results = new WeakMap<Indexed, MemberSearchResult>()
const resultJsons = new WeakMap<MemberSearchResult, string>()
const encodeResult = Schema.encodeSync(MemberSearchResult)

const render = (guildId: string, e: Indexed): MemberSearchResult => {
  let result = results.get(e)
  if (result === undefined) {
    result = renderResult(guildId, e)
    results.set(e, result)
  }
  return result
}

const resultJson = (result: MemberSearchResult): string => {
  let json = resultJsons.get(result)
  if (json === undefined) {
    json = JSON.stringify(encodeResult(result))
    resultJsons.set(result, json)
  }
  return json
}

/**
 * The JSON of a search's response, as encoding it would give: each member's
 * part kept from the searches before, the fields around them (strings, numbers,
 * a boolean: nothing to encode) stringified.
 */
export const searchResponseJson = (response: MemberSearchResponse): string => {
  const { members, ...around } = response
  return `{"members":[${members.map(resultJson).join(",")}],${JSON.stringify(around).slice(1)}`
}

export const DEFAULT_SEARCH_LIMIT = 25

/**
 * GuildMemberSearchResponse for `request`. Sorting by join time (the default,
 * newest first) walks the index in order; by relevance, exact names come
 * first, then prefixes, then the rest, each newest first.
 */
export const searchMembers = (state: GuildState, request: MemberSearchRequest): MemberSearchResponse => {
  const index = searchIndex(state)
  const query = (request.query ?? "").trim().toLowerCase()
  const matches = matcher(request)
  const descending = (request.sort_order ?? "desc") === "desc"
  const offset = request.offset ?? 0
  const limit = request.limit ?? DEFAULT_SEARCH_LIMIT
  const byRelevance = request.sort_by === "relevance" && query.length > 0
  // With a query, only the members whose names hold it are looked at.
  const positions = query.length > 0 ? candidates(index, query) : undefined
  const count = positions === undefined ? index.entries.length : positions.length
  const entryAt = (i: number) => {
    const k = descending ? count - 1 - i : i
    return index.entries[positions === undefined ? k : positions[k] ?? -1]
  }
  const page: Array<Indexed> = []
  let total = count
  if (matches === undefined && !byRelevance) {
    // Nothing to filter: the count is known, and only the page is looked at.
    for (let i = offset; i < Math.min(count, offset + limit); i++) {
      const e = entryAt(i)
      if (e !== undefined) page.push(e)
    }
  } else {
    // In join order only the page is kept (the rest is counted); by relevance every hit is ranked.
    const ranked: Array<{ readonly entry: Indexed; readonly rank: number }> = []
    total = 0
    for (let i = 0; i < count; i++) {
      const e = entryAt(i)
      if (e === undefined || (matches !== undefined && !matches(e))) continue
      if (byRelevance) ranked.push({ entry: e, rank: rank(e, query) })
      else if (total >= offset && page.length < limit) page.push(e)
      total++
    }
    // A stable sort keeps the join order within each rank.
    ranked.sort((x, y) => x.rank - y.rank)
    for (const hit of ranked.slice(offset, offset + limit)) page.push(hit.entry)
  }
  const members = page.map((e) => render(state.guild.id, e))
  return {
    guild_id: state.guild.id,
    members,
    page_result_count: members.length,
    total_result_count: total,
    indexing: false
  }
}
