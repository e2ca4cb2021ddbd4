import { Effect } from "effect"
import { ReactionsRepo } from "./reactions/Repo.ts"
import { messageCopies } from "./References.ts"
import type { ChannelId, GuildId, MessageId } from "../model/Ids.ts"

/**
 * `messageCopies`' older copy with its reactions as the caller sees them, for the
 * reaction and pin writes (whose replies and events show them). Taken when handlers
 * are built.
 */
export const olderCopies = Effect.gen(function*() {
  const { olderCopy } = yield* messageCopies
  const reactions = yield* ReactionsRepo
  return (guildId: GuildId, channelId: ChannelId, messageId: MessageId, viewerId: string) =>
    Effect.flatMap(olderCopy(guildId, channelId, messageId, viewerId), (found) =>
      found === undefined
        ? Effect.succeed(undefined)
        : Effect.map(reactions.withReactions([found], viewerId), ([withReactions]) => withReactions))
})
