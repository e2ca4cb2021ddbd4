import { Effect, Layer, Schedule } from "effect"
import * as Messages from "../../../shards/guild/operations/Messages.ts"
import {
  claimScheduledMessage,
  type ScheduledSend,
  scheduledMessageDeferred,
  scheduledMessageRefused,
  scheduledMessageSent
} from "../../../shards/user/operations/ScheduledMessages.ts"
import { AppConfig } from "../../platform/Config.ts"
import { Actors } from "../../guilds/Actors.ts"
import { UserActors } from "../../guilds/UserActors.ts"
import { NotFound, Unavailable } from "../../model/Errors.ts"
import { Snowflakes } from "../../platform/Snowflake.ts"
import { ChannelLookup } from "../ChannelLookup.ts"
import { MessagesRepo } from "../Repo.ts"
import { messageCopies } from "../References.ts"
import { type DueMessage, ScheduledMessagesRepo } from "./Repo.ts"
import { withoutReferenced } from "../../model/Messages.ts"

/** Messages one claim takes at most; a run claims again until none is due. */
const PER_CLAIM = 50

/**
 * How long a claim holds its rows: longer than a send may take (three actor
 * calls, each bounded by ACTOR_CALL_TIMEOUT_MS), so a row is only taken again
 * when its claimer died.
 */
const leaseSeconds = (actorCallTimeoutMillis: number) => Math.ceil((actorCallTimeoutMillis * 4) / 1000) + 5

/**
 * Sends the scheduled messages that are due, each through its guild's actor
 * as a CreateMessage by its author. A leased message is claimed from its
 * author's actor, which answers what to send and under which operation: the
 * same on every attempt, so a send retried after a crash between the guild's
 * commit and the outcome's is answered from the guild's record, and no second
 * message is made. The outcome goes back to the author's actor (sent; refused
 * by the guild, with its code, when the author left, lost SEND_MESSAGES or the
 * channel is gone; deferred by a slowmode), so their list shows it at once.
 */
export const sendDueMessages = Effect.gen(function*() {
  const repo = yield* ScheduledMessagesRepo
  const actors = yield* Actors
  const users = yield* UserActors
  const snowflakes = yield* Snowflakes
  const { actorCallTimeoutMillis } = yield* AppConfig

  const { referencedCopy } = yield* messageCopies

  // The reference is read as the author would see it now, as a send at this moment reads it.
  const send = (due: DueMessage, { guildId, channelId, request, operationId }: ScheduledSend) =>
    Effect.flatMap(
      request.message_reference == null
        ? Effect.succeed(undefined)
        : referencedCopy(guildId, channelId, request.message_reference, due.userId),
      (copy) =>
        actors.write(guildId, Messages.createMessage, {
          channelId,
          request,
          referenced: copy === undefined ? undefined : withoutReferenced(copy)
        }, { actorId: due.userId, operationId })
    )

  const sendClaimed = (due: DueMessage, claimed: ScheduledSend) =>
    Effect.matchEffect(send(due, claimed), {
      onSuccess: (reply) =>
        "retry_after_ms" in reply
          ? users.write(due.userId, scheduledMessageDeferred, { id: due.id, afterMillis: reply.retry_after_ms }, { actorId: due.userId })
          : users.write(due.userId, scheduledMessageSent, { id: due.id, messageId: reply.id }, { actorId: due.userId }),
      // Outcome unknown: the lease runs out and the same operation is tried again.
      onFailure: (e) =>
        e instanceof Unavailable
          ? Effect.fail(e)
          : users.write(due.userId, scheduledMessageRefused, { id: due.id, reason: e.code }, { actorId: due.userId })
    })

  const sendOne = (due: DueMessage) =>
    users.write(due.userId, claimScheduledMessage, { id: due.id, operationId: snowflakes.next() }, { actorId: due.userId }).pipe(
      Effect.flatMap((claimed) => (claimed === null ? Effect.void : sendClaimed(due, claimed))),
      Effect.catch((e) =>
        e instanceof NotFound
          // Deleted by its author since it was leased.
          ? Effect.void
          : Effect.logWarning(e instanceof Unavailable ? "scheduled message send timed out" : "scheduled message not sent", due.id, e)
      )
    )

  let sent = 0
  while (true) {
    const due = yield* repo.claimDue(PER_CLAIM, leaseSeconds(actorCallTimeoutMillis))
    if (due.length === 0) return sent
    yield* Effect.forEach(due, sendOne, { concurrency: 8, discard: true })
    sent += due.length
  }
})

/** Runs `sendDueMessages` every `SCHEDULED_MESSAGE_SWEEP_SECONDS` in each API process, for as long as it lives. */
export const scheduledMessagesJob = Layer.effectDiscard(
  Effect.gen(function*() {
    const { scheduledMessageSweepSeconds } = yield* AppConfig
    const context = yield* Effect.context<
      AppConfig | ScheduledMessagesRepo | Actors | UserActors | Snowflakes | ChannelLookup | MessagesRepo
    >()
    const run = sendDueMessages.pipe(
      Effect.provideContext(context),
      // A failed run is retried by the next one; the loop itself must not die.
      Effect.catchCause((cause) => Effect.logWarning("scheduled message run failed", cause))
    )
    yield* run.pipe(Effect.repeat(Schedule.spaced(`${scheduledMessageSweepSeconds} seconds`)), Effect.forkScoped)
  })
).pipe(Layer.provide([ScheduledMessagesRepo.layer, ChannelLookup.layer, MessagesRepo.layer]))
