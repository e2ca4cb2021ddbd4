import type { MessageResponse } from "../../../src/model/Messages.ts"
import type { GuildEvent } from "../Definitions.ts"
import { memberView } from "../members/GuildMember.ts"
import type { GuildState } from "../State.ts"

/**
 * The gateway events of a guild message, as Discord and Fluxer clients read
 * them. Built from the actor's memory: no read of Postgres per message.
 */

/** The author's guild member without `user` (the message carries its author); none for an author who is not a member. */
const authorMember = (state: GuildState, authorId: string) => {
  const member = state.members.get(authorId)
  if (member === undefined) return undefined
  const { user: _, ...rest } = memberView(member)
  return rest
}

/** MESSAGE_CREATE or MESSAGE_UPDATE of `message`, with its guild and its author's member (`message.member` in discord.js). */
export const messageEvent = (
  type: "MESSAGE_CREATE" | "MESSAGE_UPDATE",
  state: GuildState,
  guildId: string,
  message: MessageResponse
): GuildEvent => {
  const member = authorMember(state, message.author.id)
  return { type, data: member === undefined ? { ...message, guild_id: guildId } : { ...message, guild_id: guildId, member } }
}

/** MESSAGE_DELETE of a message, with what it said and who wrote it, as the production service sends it. */
export const messageDeleted = (
  guildId: string,
  message: { readonly id: string; readonly channel_id: string; readonly author_id: string; readonly content?: string }
): GuildEvent => ({
  type: "MESSAGE_DELETE",
  data: {
    id: message.id,
    channel_id: message.channel_id,
    guild_id: guildId,
    ...(message.content === undefined ? {} : { content: message.content }),
    author_id: message.author_id
  }
})

/** `messageDeleted` of a message the actor has whole. */
export const wholeMessageDeleted = (guildId: string, message: MessageResponse): GuildEvent =>
  messageDeleted(guildId, { id: message.id, channel_id: message.channel_id, author_id: message.author.id, content: message.content })
