import { Effect } from "effect"
import * as MessageReads from "../../shards/guild/operations/MessageReads.ts"
import { Actors } from "../guilds/Actors.ts"
import { unknown } from "../http/Errors.ts"
import { ReactionsRepo } from "./ReactionsRepo.ts"
import { MessagesRepo } from "./Repo.ts"

/**
 * For a write about a message: the message as Postgres has it, with its
 * reactions as the caller sees them, when it is older than the actor's window;
 * undefined when the window holds it (the actor uses its own copy). The read
 * checks the caller may read the channel. Taken when handlers are built.
 */
export const olderCopies = Effect.gen(function*() {
  const actors = yield* Actors
  const repo = yield* MessagesRepo
  const reactions = yield* ReactionsRepo
  return (guildId: string, channelId: string, messageId: string, viewerId: string) =>
    Effect.gen(function*() {
      const json = yield* actors.read(guildId, MessageReads.getMessage, { channelId, messageId }, viewerId)
      if (json !== null) return undefined
      const found = yield* repo.find(channelId, messageId)
      if (found === undefined) return yield* unknown("MESSAGE")
      const [withReactions] = yield* reactions.withReactions([found], viewerId)
      return withReactions
    })
})
