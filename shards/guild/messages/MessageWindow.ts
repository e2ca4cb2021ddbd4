import type { MessageReactions } from "./WindowReactions.ts"
import { SharedMap } from "../SharedMap.ts"

/** What the actor keeps of one message: its JSON as served, and what decisions look at. */
export interface WindowEntry {
  readonly id: bigint
  readonly authorId: string
  readonly nonce: string | null
  /** When it was sent, ms since the epoch. */
  readonly sentAt: number
  /** MessageResponse, encoded. */
  readonly json: string
}

/** Messages each channel keeps in memory: two default pages, so a page and the one before it come from memory. */
export const WINDOW_SIZE = 100

/**
 * A channel's newest messages, oldest first. The guild state is immutable, so
 * every message sent makes a new window; versions share one backing array
 * (each sees its own [start, end) of it), and an append writes past the end
 * in place when nothing was written there yet, so it copies nothing. A version
 * appended to again (a batch decided once more after a failed commit) copies
 * its own slice first. Entries never change where they are, so a reader of an
 * older version never sees a later write.
 */
export class MessageWindow {
  private readonly backing: Array<WindowEntry>
  private readonly start: number
  private readonly end: number

  private constructor(backing: Array<WindowEntry>, start: number, end: number) {
    this.backing = backing
    this.start = start
    this.end = end
  }

  static readonly empty: MessageWindow = new MessageWindow([], 0, 0)

  /** A window of `entries`, oldest first. */
  static of(entries: ReadonlyArray<WindowEntry>): MessageWindow {
    return new MessageWindow([...entries], 0, entries.length)
  }

  get size(): number {
    return this.end - this.start
  }

  /** The entry at `index` (0 is the oldest). */
  at(index: number): WindowEntry | undefined {
    return index >= 0 && index < this.size ? this.backing[this.start + index] : undefined
  }

  /** Entries from `from` up to (not including) `to`, oldest first. */
  slice(from: number, to: number): ReadonlyArray<WindowEntry> {
    return this.backing.slice(this.start + Math.max(0, from), this.start + Math.min(this.size, to))
  }

  /** The index of the first entry whose id is at least `id` (size when none is). */
  lowerBound(id: bigint): number {
    let low = 0
    let high = this.size
    while (low < high) {
      const middle = (low + high) >>> 1
      const entry = this.at(middle)
      if (entry !== undefined && entry.id < id) low = middle + 1
      else high = middle
    }
    return low
  }

  find(id: bigint): WindowEntry | undefined {
    const entry = this.at(this.lowerBound(id))
    return entry?.id === id ? entry : undefined
  }

  /** This window with `entry` (newer than every entry) at the end, and the oldest dropped beyond `capacity`. */
  append(entry: WindowEntry, capacity: number): { readonly window: MessageWindow; readonly dropped: WindowEntry | undefined } {
    const full = this.size >= capacity
    const start = full ? this.start + 1 : this.start
    const dropped = full ? this.at(0) : undefined
    // The dead prefix is compacted away once it is as long as the window: amortized, no append copies.
    if (this.end === this.backing.length && start < capacity) {
      this.backing.push(entry)
      return { window: new MessageWindow(this.backing, start, this.end + 1), dropped }
    }
    const copy = this.backing.slice(start, this.end)
    copy.push(entry)
    return { window: new MessageWindow(copy, 0, copy.length), dropped }
  }

  /** This window with `entry` in place of the entry of the same id. */
  replaced(entry: WindowEntry): MessageWindow {
    return MessageWindow.of(this.slice(0, this.size).map((e) => (e.id === entry.id ? entry : e)))
  }

  /** This window without the entries of `ids`. */
  without(ids: ReadonlySet<bigint>): MessageWindow {
    const kept = this.slice(0, this.size).filter((e) => !ids.has(e.id))
    return kept.length === this.size ? this : MessageWindow.of(kept)
  }
}

/** One channel's messages as the guild state keeps them. */
export interface ChannelMessages {
  /** The highest id the channel gave a message (0n for none): the next one must be higher. */
  readonly lastId: bigint
  readonly window: MessageWindow
  /** Every message of the channel with an id at least this is in the window (0n: the window holds them all). */
  readonly coveredFrom: bigint
  /** When each member last sent here, kept while the channel has a slowmode. */
  readonly lastSent: SharedMap<string, number>
  /** Reactions of the window's messages by message id (Reactions.ts); absent or missing: none. */
  readonly reactions?: SharedMap<string, MessageReactions>
  /** The channel's pinned messages (any age) by id, each with when it was pinned (ISO); absent: none. */
  readonly pins?: ReadonlyMap<string, string>
}

/** A channel that has no message: nothing to cover. */
export const NO_MESSAGES: ChannelMessages = {
  lastId: 0n,
  window: MessageWindow.empty,
  coveredFrom: 0n,
  lastSent: SharedMap.empty()
}

/** The channel's messages with `entry` sent last. */
export const appended = (channel: ChannelMessages, entry: WindowEntry): ChannelMessages => {
  const { window, dropped } = channel.window.append(entry, WINDOW_SIZE)
  return {
    ...channel,
    lastId: entry.id > channel.lastId ? entry.id : channel.lastId,
    window,
    coveredFrom: dropped === undefined ? channel.coveredFrom : dropped.id + 1n
  }
}

/**
 * Whether `id` is known absent: the window covers it and does not hold it. A
 * message below the covered range may still be in Postgres.
 */
export const knownAbsent = (channel: ChannelMessages, id: bigint): boolean =>
  id >= channel.coveredFrom && channel.window.find(id) === undefined
