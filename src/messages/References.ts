import { Effect, Schema } from "effect"
import * as MessageReads from "../../shards/guild/operations/MessageReads.ts"
import { DmsRepo } from "../dms/Repo.ts"
import { Actors } from "../guilds/Actors.ts"
import { invalidField, missingAccess, unknown } from "../model/Errors.ts"
import { ChannelLookup } from "./ChannelLookup.ts"
import { MessagesRepo } from "./Repo.ts"
import { type MessageReferenceRequest } from "../model/MessageRequests.ts"
import { MessageReferenceType, MessageResponse } from "../model/Messages.ts"
import { CarriedId, type ChannelId, type GuildId, type MessageId } from "../model/Ids.ts"

const decodeMessage = (json: string) => Effect.orDie(Schema.decodeUnknownEffect(MessageResponse)(JSON.parse(json)))

/**
 * Copies of stored messages that writes about them hand to the guild actor, which
 * keeps only each channel's newest messages in memory. Taken when handlers and
 * jobs are built (message routes, reactions, pins, the scheduled-message sender).
 */
export const messageCopies = Effect.gen(function*() {
  const actors = yield* Actors
  const channels = yield* ChannelLookup
  const repo = yield* MessagesRepo
  const dms = yield* DmsRepo

  /** The message as Postgres has it, or 404 UNKNOWN_MESSAGE. */
  const stored = (channelId: string, messageId: string) =>
    Effect.flatMap(repo.find(channelId, messageId), (found) =>
      found === undefined ? Effect.fail(unknown("MESSAGE")) : Effect.succeed(found))

  /**
   * For a write about a message: its stored copy when it is older than the actor's
   * window; undefined when the window holds it (the actor uses its own copy). The
   * read checks that `viewerId` may read the channel.
   */
  const olderCopy = (guildId: GuildId, channelId: ChannelId, messageId: MessageId, viewerId: string) =>
    Effect.flatMap(
      actors.read(guildId, MessageReads.getMessage, { channelId, messageId }, viewerId),
      (json) => (json === null ? stored(channelId, messageId) : Effect.succeed(undefined))
    )

  /**
   * The message a forward copies, read as `viewerId` may read it (a guild channel
   * through its actor, so 403/404 as a read there; a DM only by its recipients),
   * with the guild it is in (null: a DM). Forwards into guild and DM channels alike.
   */
  const forwardedCopy = (sourceId: string, reference: MessageReferenceRequest, viewerId: string) =>
    Effect.gen(function*() {
      /** `guild_id`, when given, names the source's guild (a DM has none). */
      const mustBeIn = (guildId: string | null) =>
        reference.guild_id !== undefined && reference.guild_id !== guildId
          ? Effect.fail(invalidField("message_reference.guild_id", "GUILD_ID_MUST_MATCH_REFERENCED_MESSAGE", "Not the message's guild"))
          : Effect.void
      return yield* channels.byOwner(sourceId, {
        dm: () =>
          Effect.gen(function*() {
            yield* mustBeIn(null)
            if (!(yield* dms.isRecipient(sourceId, viewerId))) return yield* missingAccess()
            return { message: yield* stored(sourceId, reference.message_id), guildId: null }
          }),
        guild: (sourceGuild) =>
          Effect.gen(function*() {
            yield* mustBeIn(sourceGuild)
            // Snowflakes checked where the reference came in (the request, or the scheduled message stored from one).
            const source = { channelId: CarriedId.ChannelId.make(sourceId), messageId: CarriedId.MessageId.make(reference.message_id) }
            const json = yield* actors.read(sourceGuild, MessageReads.getMessage, source, viewerId)
            const message = json === null ? yield* stored(sourceId, reference.message_id) : yield* decodeMessage(json)
            return { message, guildId: sourceGuild }
          })
      })
    })

  /**
   * What a create's `message_reference` names: a reply's target when older than the
   * window, or the message a forward copies. The scheduled-message sender uses it
   * too, so a scheduled reply to an old message works as a sent one does.
   */
  const referencedCopy = (guildId: GuildId, channelId: ChannelId, reference: MessageReferenceRequest, viewerId: string) =>
    Effect.gen(function*() {
      const sourceId = reference.channel_id ?? channelId
      if (reference.type !== MessageReferenceType.FORWARD) {
        // A reply to another channel is refused by the actor; nothing to read for it.
        return sourceId === channelId ? yield* olderCopy(guildId, channelId, CarriedId.MessageId.make(reference.message_id), viewerId) : undefined
      }
      return (yield* forwardedCopy(sourceId, reference, viewerId)).message
    })

  return { stored, olderCopy, forwardedCopy, referencedCopy }
})
