import { Effect, Layer, Schedule } from "effect"
import * as Messages from "../../../shards/guild/operations/Messages.ts"
import { AppConfig } from "../../platform/Config.ts"
import { Actors } from "../../guilds/Actors.ts"
import { Unavailable } from "../../model/Errors.ts"
import { Snowflakes } from "../../platform/Snowflake.ts"
import { ChannelLookup } from "../ChannelLookup.ts"
import { MessagesRepo } from "../Repo.ts"
import { messageCopies } from "../References.ts"
import { type ClaimedMessage, ScheduledMessagesRepo } from "./Repo.ts"
import { withoutReferenced } from "../../model/Messages.ts"

/** Messages one claim takes at most; a run claims again until none is due. */
const PER_CLAIM = 50

/**
 * How long a claim holds its rows: longer than a send may take (the actor call
 * is bounded by ACTOR_CALL_TIMEOUT_MS), so a row is only taken again when its
 * claimer died.
 */
const leaseSeconds = (actorCallTimeoutMillis: number) => Math.ceil((actorCallTimeoutMillis * 3) / 1000) + 5

/**
 * Sends the scheduled messages that are due, each through its guild's actor
 * as a CreateMessage by its author. Exactly once: the send's operation id is
 * the row's (ScheduledRepo.ts), so a send retried after a crash between the
 * actor's commit and `markSent` is answered from the actor's record, and no
 * second message is made. A send the guild refuses (the author left, lost
 * SEND_MESSAGES, the channel is gone) marks the row invalid with the code.
 */
export const sendDueMessages = Effect.gen(function*() {
  const repo = yield* ScheduledMessagesRepo
  const actors = yield* Actors
  const snowflakes = yield* Snowflakes
  const { actorCallTimeoutMillis } = yield* AppConfig

  const { referencedCopy } = yield* messageCopies

  // The reference is read as the author would see it now, as a send at this moment reads it.
  const sendOne = (m: ClaimedMessage) =>
    Effect.flatMap(
      m.request.message_reference == null
        ? Effect.succeed(undefined)
        : referencedCopy(m.guildId, m.channelId, m.request.message_reference, m.userId),
      (copy) =>
        actors.write(m.guildId, Messages.createMessage, {
          channelId: m.channelId,
          request: m.request,
          referenced: copy === undefined ? undefined : withoutReferenced(copy)
        }, { actorId: m.userId, operationId: m.operationId })
    ).pipe(
      Effect.flatMap((reply) => "retry_after_ms" in reply ? repo.retryLater(m.id, reply.retry_after_ms) : repo.markSent(m.id, reply.id)),
      Effect.catch((e) =>
        // Outcome unknown: the lease runs out and the same operation is tried again.
        e instanceof Unavailable ? Effect.logWarning("scheduled message send timed out", m.id) : repo.markInvalid(m.id, e.code)
      )
    )

  let sent = 0
  while (true) {
    const claimed = yield* repo.claimDue(PER_CLAIM, leaseSeconds(actorCallTimeoutMillis), snowflakes.next)
    if (claimed.length === 0) return sent
    yield* Effect.forEach(claimed, sendOne, { concurrency: 8, discard: true })
    sent += claimed.length
  }
})

/** Runs `sendDueMessages` every `SCHEDULED_MESSAGE_SWEEP_SECONDS` in each API process, for as long as it lives. */
export const scheduledMessagesJob = Layer.effectDiscard(
  Effect.gen(function*() {
    const { scheduledMessageSweepSeconds } = yield* AppConfig
    const context = yield* Effect.context<AppConfig | ScheduledMessagesRepo | Actors | Snowflakes | ChannelLookup | MessagesRepo>()
    const run = sendDueMessages.pipe(
      Effect.provideContext(context),
      // A failed run is retried by the next one; the loop itself must not die.
      Effect.catchCause((cause) => Effect.logWarning("scheduled message run failed", cause))
    )
    yield* run.pipe(Effect.repeat(Schedule.spaced(`${scheduledMessageSweepSeconds} seconds`)), Effect.forkScoped)
  })
).pipe(Layer.provide([ScheduledMessagesRepo.layer, ChannelLookup.layer, MessagesRepo.layer]))
