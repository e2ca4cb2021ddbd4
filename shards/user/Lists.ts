import type { ConnectionResponse } from "../../src/model/Connections.ts"
import type { FavoriteMemeResponse } from "../../src/model/FavoriteMemes.ts"
import type { GuildId } from "../../src/model/Ids.ts"
import type { ScheduledMessageResponse } from "../../src/model/ScheduledMessages.ts"

/**
 * The user's own lists in their actor's state: saved messages, Web Push
 * subscriptions, scheduled messages, account connections and saved media. Each
 * changes only by a write of the actor (operations/SavedMessages.ts,
 * PushSubscriptions.ts, ScheduledMessages.ts, Connections.ts, FavoriteMemes.ts),
 * so listing them never asks Postgres.
 */

/** A message the user saved: ids only. The message is its channel's and is rendered when the list is shown. */
export interface SavedEntry {
  readonly channelId: string
  /** Milliseconds since the epoch; saving it again moves it to the top. */
  readonly savedAt: number
}

/**
 * A device's Web Push subscription, as the user's own reads show it. Its keys
 * (p256dh, auth) stay in Postgres only: no read of the user's shows them, and
 * whatever sends a push reads them there next to the endpoint, so the actor
 * would only hold secrets it never uses.
 */
export interface PushSubscriptionEntry {
  readonly id: string
  readonly endpoint: string
  readonly userAgent: string | null
  /** The token hash (hex) of the session that subscribed: signing that session out ends the subscription. */
  readonly sessionHash: string
  /** Milliseconds since the epoch: the longest unrefreshed goes first when there are too many. */
  readonly updatedAt: number
}

/** A scheduled message: what the user's reads show, and what the sweep that sends it needs. */
export interface ScheduledEntry {
  readonly view: ScheduledMessageResponse
  readonly guildId: GuildId
  /** Fixed when the sweep first claims it: every attempt sends under it, and no edit is taken after. */
  readonly sendOperationId: string | null
  /** The message it became, once sent. */
  readonly messageId: string | null
}

/** An account connection: what the list shows, and the proof a re-verification looks for again. */
export interface ConnectionEntry {
  readonly view: ConnectionResponse
  /** The string the user put in a DNS record or on their profile (public: anyone can read it there). */
  readonly proof: string
  /** Milliseconds since the epoch of the last check that found the proof; null after one that did not. */
  readonly verifiedAt: number | null
}

export interface UserLists {
  /** By message id. */
  readonly saved: ReadonlyMap<string, SavedEntry>
  /** By id, oldest subscription first (the order the list shows). */
  readonly pushSubscriptions: ReadonlyMap<string, PushSubscriptionEntry>
  /** By id. */
  readonly scheduled: ReadonlyMap<string, ScheduledEntry>
  /** By id. */
  readonly connections: ReadonlyMap<string, ConnectionEntry>
  /** Saved media ("memes") as the user's reads show them, by id. */
  readonly memes: ReadonlyMap<string, FavoriteMemeResponse>
}

/** Approximate bytes of the lists (nothing for empty ones: an idle user with none stays small). */
export const listsBytes = (lists: UserLists): number => {
  let bytes = lists.saved.size * 160
  for (const s of lists.pushSubscriptions.values()) bytes += 240 + (s.endpoint.length + (s.userAgent?.length ?? 0)) * 2
  for (const s of lists.scheduled.values()) bytes += 200 + JSON.stringify(s.view).length * 2
  for (const c of lists.connections.values()) bytes += 240 + (c.view.name.length + c.proof.length) * 2
  for (const m of lists.memes.values()) bytes += 400 + (m.name.length + (m.alt_text?.length ?? 0) + m.url.length) * 2
  return bytes
}

/**
 * A time no earlier than `now` and later than every one of `times`: the order
 * of a list's writes is the order of their times, however close they come,
 * and the time is the state's own, so a redelivered write decides the same.
 */
export const laterThan = (now: number, times: Iterable<number>): number => {
  let at = now
  for (const time of times) if (time >= at) at = time + 1
  return at
}

/** Snowflakes in id order. */
export const byId = (a: string, b: string): number => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0)
