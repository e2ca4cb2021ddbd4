import { Effect, Schema } from "effect"
import * as MessageReads from "../../shards/guild/operations/MessageReads.ts"
import { Actors } from "../guilds/Actors.ts"
import { invalidField, unknown } from "../http/Errors.ts"
import { ChannelLookup } from "./ChannelLookup.ts"
import { MessagesRepo } from "./Repo.ts"
import { type MessageReferenceRequest } from "./Requests.ts"
import { MessageReferenceType, MessageResponse } from "./Schemas.ts"

const decodeMessage = (json: string) => Effect.orDie(Schema.decodeUnknownEffect(MessageResponse)(JSON.parse(json)))

/**
 * What a create's `message_reference` names, for the actor: a reply's target when
 * it is older than the actor's window (undefined when the window holds it), or the
 * message a forward copies (from its own guild). Reads check that `viewerId` may
 * read the channel. Used by message create and by the scheduled-message sender,
 * so a scheduled reply to an old message works as a sent one does. Taken when
 * handlers and jobs are built.
 */
export const referencedCopies = Effect.gen(function*() {
  const actors = yield* Actors
  const channels = yield* ChannelLookup
  const repo = yield* MessagesRepo
  const stored = (channelId: string, messageId: string) =>
    Effect.flatMap(repo.find(channelId, messageId), (found) =>
      found === undefined ? Effect.fail(unknown("MESSAGE")) : Effect.succeed(found))
  return (guildId: string, channelId: string, reference: MessageReferenceRequest, viewerId: string) =>
    Effect.gen(function*() {
      const sourceId = reference.channel_id ?? channelId
      if (reference.type !== MessageReferenceType.FORWARD) {
        // A reply to another channel is refused by the actor; nothing to read for it.
        if (sourceId !== channelId) return undefined
        const json = yield* actors.read(guildId, MessageReads.getMessage, { channelId, messageId: reference.message_id }, viewerId)
        return json === null ? yield* stored(channelId, reference.message_id) : undefined
      }
      const sourceGuild = yield* channels.guildOf(sourceId)
      if (reference.guild_id !== undefined && reference.guild_id !== sourceGuild) {
        return yield* invalidField("message_reference.guild_id", "GUILD_ID_MUST_MATCH_REFERENCED_MESSAGE", "Not the message's guild")
      }
      const json = yield* actors.read(sourceGuild, MessageReads.getMessage, { channelId: sourceId, messageId: reference.message_id }, viewerId)
      return json === null ? yield* stored(sourceId, reference.message_id) : yield* decodeMessage(json)
    })
})
