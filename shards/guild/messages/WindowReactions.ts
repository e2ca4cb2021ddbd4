import type { MessageReactionResponse } from "../../../src/model/Messages.ts"
import { type PageQuery, renderPage, windowPage } from "./MessagePages.ts"
import type { ChannelMessages, WindowEntry } from "./MessageWindow.ts"
import { SharedMap } from "../SharedMap.ts"

/**
 * The reactions of the messages a channel's window holds, as the guild actor
 * keeps them: who reacted with what, so that a page shows each viewer its own
 * `me`. They live beside the window's JSON, not in it (the JSON is the same
 * for every viewer), and are spliced into it when read.
 */

/** An emoji as a reaction shows it; `id` null for a unicode emoji. */
export interface ShownEmoji {
  readonly id: string | null
  readonly name: string
  readonly animated: boolean
}

/** One emoji's reactions on a message. */
export interface Reaction {
  /** What reactions are matched by: a custom emoji's id, a unicode emoji's text. */
  readonly key: string
  readonly emoji: ShownEmoji
  /** Who reacted, earliest first. */
  readonly users: ReadonlyArray<string>
}

/** A message's reactions, in the order each emoji was first used. */
export type MessageReactions = ReadonlyArray<Reaction>

/** Distinct emojis on one message at most. */
export const MAX_REACTIONS = 20

export const emojiKey = (emoji: { readonly id: string | null; readonly name: string }): string => emoji.id ?? emoji.name

/** The emoji as events and summaries carry it. */
export const emojiJson = (emoji: ShownEmoji) =>
  emoji.id === null ? { id: null, name: emoji.name } : { id: emoji.id, name: emoji.name, animated: emoji.animated }

/** The `reactions` of a message as `viewerId` sees it. */
export const summaryFor = (reactions: MessageReactions, viewerId: string): ReadonlyArray<MessageReactionResponse> =>
  reactions.map((r) => ({ emoji: emojiJson(r.emoji), count: r.users.length, me: r.users.includes(viewerId) }))

/** The window's reactions of message `messageId` (none when it has none or is not in the window). */
export const reactionsOf = (messages: ChannelMessages, messageId: string): MessageReactions =>
  messages.reactions?.get(messageId) ?? []

/**
 * The channel's messages with `reactions` as message `messageId`'s. Entries
 * of messages that left the window (older ones pushed out, deleted ones) are
 * dropped on the way, so the map never outgrows the window for long.
 */
export const withReactions = (messages: ChannelMessages, messageId: string, reactions: MessageReactions): ChannelMessages => {
  let map: SharedMap<string, MessageReactions> | undefined = messages.reactions
  if (map === undefined) return reactions.length === 0 ? messages : { ...messages, reactions: SharedMap.from([[messageId, reactions]]) }
  map = reactions.length === 0 ? map.without(messageId) : map.with(messageId, reactions)
  if (map.size > messages.window.size) {
    for (const id of [...map.keys()]) if (messages.window.find(BigInt(id)) === undefined) map = map.without(id)
  }
  return { ...messages, reactions: map }
}

/** One window message's JSON with its reactions as `viewerId` sees them. */
export const messageJsonFor = (messages: ChannelMessages, entry: WindowEntry, viewerId: string): string => {
  const reactions = messages.reactions?.get(entry.id.toString())
  if (reactions === undefined || reactions.length === 0) return entry.json
  // The entry is an encoded MessageResponse, which has no `reactions` of its own: the field goes last.
  return `${entry.json.slice(0, -1)},"reactions":${JSON.stringify(summaryFor(reactions, viewerId))}}`
}

/** A page as JSON for `viewerId` (renderPage's, with reactions), or undefined when the window cannot answer it. */
export const pageJsonFor = (messages: ChannelMessages, query: PageQuery, viewerId: string): string | undefined => {
  if (messages.reactions === undefined || messages.reactions.size === 0) return renderPage(messages, query)
  const entries = windowPage(messages, query)
  return entries === undefined ? undefined : `[${entries.map((e) => messageJsonFor(messages, e, viewerId)).join(",")}]`
}
