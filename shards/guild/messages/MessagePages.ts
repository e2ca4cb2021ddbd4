import { type ChannelMessages, type MessageWindow, type WindowEntry } from "./MessageWindow.ts"

/** GET /channels/{id}/messages: at most one of the cursors (conventions.md, Paging). */
export interface PageQuery {
  readonly limit: number
  readonly before?: string | undefined
  readonly after?: string | undefined
  readonly around?: string | undefined
}

/** The `n` newest entries below `upper` (all when undefined), oldest first; undefined when older ones may exist unseen. */
const below = (channel: ChannelMessages, upper: bigint | undefined, n: number) => {
  const to = upper === undefined ? channel.window.size : channel.window.lowerBound(upper)
  const from = Math.max(0, to - n)
  // Fewer than asked: the rest is older than the window, unless the window holds the whole channel.
  return to - from < n && channel.coveredFrom !== 0n ? undefined : channel.window.slice(from, to)
}

/** The `n` oldest entries above `lower`, oldest first; undefined when some of them may lie below the window. */
const above = (channel: ChannelMessages, lower: bigint, n: number) => {
  if (lower + 1n < channel.coveredFrom) return undefined
  const from = channel.window.lowerBound(lower + 1n)
  return channel.window.slice(from, from + n)
}

/**
 * The page's messages newest first, from the window alone; undefined when the
 * window cannot tell (Postgres can). `around` takes the message itself and
 * the older half, then the newer half.
 */
export const windowPage = (channel: ChannelMessages, query: PageQuery): ReadonlyArray<WindowEntry> | undefined => {
  const { limit } = query
  let oldestFirst: ReadonlyArray<WindowEntry> | undefined
  if (query.around !== undefined) {
    const at = BigInt(query.around)
    const older = below(channel, at + 1n, Math.ceil(limit / 2))
    const newer = above(channel, at, Math.floor(limit / 2))
    oldestFirst = older === undefined || newer === undefined ? undefined : [...older, ...newer]
  } else if (query.after !== undefined) {
    oldestFirst = above(channel, BigInt(query.after), limit)
  } else {
    oldestFirst = below(channel, query.before === undefined ? undefined : BigInt(query.before), limit)
  }
  return oldestFirst === undefined ? undefined : [...oldestFirst].reverse()
}

/** Entries, newest first, as the JSON array the API answers. */
export const pageJson = (newestFirst: ReadonlyArray<WindowEntry>): string => `[${newestFirst.map((e) => e.json).join(",")}]`

// Windows are immutable (every message makes a new one), so a window is the key its
// rendered newest pages live and die with: a busy channel read by many renders once.
const newestPages = new WeakMap<MessageWindow, Map<number, string>>()

/** The page as JSON, or undefined when the window cannot answer it. */
export const renderPage = (channel: ChannelMessages, query: PageQuery): string | undefined => {
  const newest = query.before === undefined && query.after === undefined && query.around === undefined
  const cached = newest ? newestPages.get(channel.window)?.get(query.limit) : undefined
  if (cached !== undefined) return cached
  const entries = windowPage(channel, query)
  if (entries === undefined) return undefined
  const json = pageJson(entries)
  if (newest) {
    const byLimit = newestPages.get(channel.window) ?? new Map<number, string>()
    byLimit.set(query.limit, json)
    newestPages.set(channel.window, byLimit)
  }
  return json
}
