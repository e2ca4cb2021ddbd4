import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { BadRequest, type Forbidden, type NotFound } from "../../src/model/Errors.ts"
import type { MessageResponse } from "../../src/model/Messages.ts"
import { storeAck } from "../guild/operations/MessageAcks.ts"
import { MAX_PINS } from "../guild/operations/Pins.ts"
import { setPinned } from "../guild/messages/ReactionRows.ts"
import type { DmRepo } from "./Repo.ts"
import type { DmState } from "./State.ts"

/** What the actor lends these handlers (Actor.ts). */
interface ActorParts {
  readonly channelId: string
  readonly sql: SqlClient.SqlClient
  readonly repo: DmRepo
  readonly asRecipient: (userId: string) => Effect.Effect<DmState, Forbidden | NotFound>
  readonly existingMessage: (messageId: string) => Effect.Effect<MessageResponse, NotFound>
  /** Refuses when a block stands between the actor and the other recipient of a one-to-one DM. */
  readonly mayMessage: (s: DmState, actorId: string) => Effect.Effect<void, BadRequest>
  readonly tell: (userIds: Iterable<string>, type: string, data: unknown) => Effect.Effect<void>
}

/**
 * Typing, pins and read acks of a DM channel. Nobody moderates a DM: any
 * recipient pins and unpins. The pinned flag lives on the message row, so
 * Postgres answers the pin count and the newest pin time.
 */
export const channelExtras = (parts: ActorParts) => {
  const { channelId, sql, repo, asRecipient, tell } = parts
  const everyone = (s: DmState) => [...s.recipients.keys()]

  const pinSummary = sql<{ n: number; newest: Date | null }>`
    SELECT count(*)::int AS n, max(pinned_at) AS newest FROM messages WHERE channel_id = ${channelId} AND pinned`.pipe(
    Effect.orDie,
    Effect.map(([row]) => ({ count: row?.n ?? 0, newest: row?.newest == null ? null : new Date(row.newest).toISOString() }))
  )

  return {
    typing: (payload: { readonly actorId: string; readonly now: number }) =>
      Effect.gen(function*() {
        const s = yield* asRecipient(payload.actorId)
        yield* parts.mayMessage(s, payload.actorId)
        yield* tell(everyone(s), "TYPING_START", {
          channel_id: s.id,
          user_id: payload.actorId,
          timestamp: Math.floor(payload.now / 1000)
        })
      }),

    pin: (payload: { readonly actorId: string; readonly messageId: string; readonly pinned: boolean; readonly now: number }) =>
      Effect.gen(function*() {
        const s = yield* asRecipient(payload.actorId)
        const message = yield* parts.existingMessage(payload.messageId)
        if (message.pinned === payload.pinned) return
        if (payload.pinned && (yield* pinSummary).count >= MAX_PINS) {
          return yield* new BadRequest({ code: "MAX_PINS_PER_CHANNEL", message: `Maximum number of pins reached (${MAX_PINS})` })
        }
        const pinnedAt = payload.pinned ? new Date(payload.now).toISOString() : null
        yield* repo.commit(Effect.provideService(setPinned(s.id, message.id, pinnedAt), SqlClient.SqlClient, sql))
        const { reactions: _, ...rest } = message
        yield* tell(everyone(s), "MESSAGE_UPDATE", { ...rest, pinned: payload.pinned })
        yield* tell(everyone(s), "CHANNEL_PINS_UPDATE", { channel_id: s.id, last_pin_timestamp: (yield* pinSummary).newest })
      }),

    ack: (payload: {
      readonly actorId: string
      readonly messageId: string
      readonly mentionCount?: number | undefined
      readonly manual?: boolean | undefined
    }) =>
      Effect.gen(function*() {
        const s = yield* asRecipient(payload.actorId)
        const ack = { channelId: s.id, messageId: payload.messageId, mentionCount: payload.mentionCount, manual: payload.manual }
        yield* repo.commit(Effect.provideService(storeAck(payload.actorId, ack), SqlClient.SqlClient, sql))
        // A read state is the reader's own: only their sessions hear of it.
        yield* tell([payload.actorId], "MESSAGE_ACK", {
          channel_id: s.id,
          message_id: payload.messageId,
          user_id: payload.actorId,
          ...(payload.manual === undefined ? {} : { manual: payload.manual }),
          ...(payload.mentionCount === undefined ? {} : { mention_count: payload.mentionCount })
        })
      })
  }
}
