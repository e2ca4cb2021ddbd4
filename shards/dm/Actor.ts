import { type Duration, Effect, Schema } from "effect"
import { Entity } from "effect/cluster"
import { SqlClient } from "effect/sql"
import type { ChannelResponse } from "../../src/model/Guilds.ts"
import { BadRequest, Forbidden, missingAccess, missingPermissions, NotFound, unknown } from "../../src/model/Errors.ts"
import { MessageReferenceType, MessageResponse } from "../../src/model/Messages.ts"
import { UserEvents } from "../UserEvents.ts"
import type { GroupDmPatch } from "../../src/model/Dms.ts"
import { maxGroupDms } from "./GroupDmLimit.ts"
import { MAX_GROUP_DM_RECIPIENTS } from "../../src/model/Dms.ts"
import { deleteMessages, insertMessage, updateMessage } from "../guild/messages/MessageRows.ts"
import { withoutAttachment } from "../guild/operations/MessageAttachments.ts"
import { MESSAGE_COLUMNS, type MessageRow, renderRows } from "../guild/messages/StoredMessages.ts"
import { channelExtras } from "./ChannelExtras.ts"
import { draftMessage, editedMessage, NONCE_TTL_MS } from "./Messages.ts"
import { DmChannel } from "./Protocol.ts"
import { makeDmRepo } from "./Repo.ts"
import { type Call, callData, type DmState, isGroup, viewFor } from "./State.ts"

const encodeMessage = Schema.encodeSync(MessageResponse)
/** Messages remembered for nonce deduplication. */
const RECENT = 50

const cannotExecuteOnDm = () => new Forbidden({ code: "CANNOT_EXECUTE_ON_DM", message: "Cannot execute action on a DM channel" })
const cannotMessage = () => new BadRequest({ code: "CANNOT_SEND_MESSAGES_TO_USER", message: "Cannot send messages to this user" })
const noActiveCall = () => new NotFound({ code: "NO_ACTIVE_CALL", message: "There is no call in this channel" })

/**
 * One DM channel's actor (Protocol.ts). Its messages run one at a time, in
 * the order they arrive: that orders the channel's message ids and makes each
 * check-then-write atomic. State is loaded from Postgres on first use.
 */
export const DmChannelActor = (options: { readonly maxIdleTime: Duration.Input }) =>
  DmChannel.toLayer(
    Effect.gen(function*() {
      const { entityId: channelId } = yield* Entity.CurrentAddress
      const sql = yield* SqlClient.SqlClient
      const events = yield* UserEvents
      const repo = makeDmRepo(sql)
      const withSql = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Effect.provideService(effect, SqlClient.SqlClient, sql)
      let state: DmState | undefined
      const recent: Array<{ readonly authorId: string; readonly nonce: string; readonly sentAt: number; readonly json: string }> = []

      const current = Effect.suspend(() =>
        state !== undefined
          ? Effect.succeed(state)
          : Effect.flatMap(repo.load(channelId), (loaded) => {
            state = loaded
            return loaded === undefined ? Effect.fail(unknown("CHANNEL")) : Effect.succeed(loaded)
          })
      )
      /** The state, for a recipient of the channel. */
      const asRecipient = (userId: string) =>
        Effect.flatMap(current, (s) => (s.recipients.has(userId) ? Effect.succeed(s) : Effect.fail(missingAccess())))
      const asGroupRecipient = (userId: string) =>
        Effect.flatMap(asRecipient(userId), (s) => (isGroup(s) ? Effect.succeed(s) : Effect.fail(cannotExecuteOnDm())))

      const tell = (userIds: Iterable<string>, type: string, data: unknown) =>
        events.publish(userIds, { type, data: JSON.stringify(data) })
      /** Each user sees the channel their own way (the others are its recipients). */
      const tellEach = (s: DmState, userIds: Iterable<string>, type: string, view: (viewer: string) => ChannelResponse = (v) => viewFor(s, v)) =>
        Effect.forEach(userIds, (userId) => tell([userId], type, view(userId)), { discard: true })
      const everyone = (s: DmState) => [...s.recipients.keys()]

      /** In a DM, a block either way stops messages and calls. */
      const blocked = (s: DmState, actorId: string) => {
        const other = everyone(s).find((id) => id !== actorId)
        return isGroup(s) || other === undefined ? Effect.succeed(false) : repo.blockedBetween(actorId, other)
      }

      const mayMessage = (s: DmState, actorId: string) =>
        Effect.flatMap(blocked(s, actorId), (refused) => (refused ? Effect.fail(cannotMessage()) : Effect.void))

      const findMessage = (messageId: string) =>
        withSql(Effect.flatMap(
          sql<MessageRow>`SELECT ${sql.literal(MESSAGE_COLUMNS)} FROM messages m WHERE m.channel_id = ${channelId} AND m.id = ${messageId}`,
          renderRows
        )).pipe(Effect.orDie, Effect.map(([message]) => message))
      const existingMessage = (messageId: string) =>
        Effect.flatMap(findMessage(messageId), (m) => (m === undefined ? Effect.fail(unknown("MESSAGE")) : Effect.succeed(m)))

      const setOpen = (s: DmState, userIds: ReadonlyArray<string>, open: boolean): DmState => ({
        ...s,
        recipients: new Map([...s.recipients].map(([id, r]) => [id, userIds.includes(id) ? { ...r, open } : r]))
      })

      /** `userId` leaves a group DM: the owner's place passes on; the last one out deletes the channel. */
      const leave = (s: DmState, userId: string) =>
        Effect.gen(function*() {
          const remaining = new Map(s.recipients)
          remaining.delete(userId)
          const gone = { id: s.id, type: s.type }
          if (remaining.size === 0) {
            yield* repo.commit(repo.deleteChannel(s.id))
            state = undefined
            return yield* tell([userId], "CHANNEL_DELETE", gone)
          }
          const ownerId = s.ownerId === userId ? [...remaining.keys()][0] ?? null : s.ownerId
          const call = s.call === undefined ? undefined : { ...s.call, ringing: s.call.ringing.filter((id) => id !== userId) }
          const next: DmState = { ...s, recipients: remaining, ownerId, call }
          yield* repo.commit(Effect.all([
            repo.removeRecipient(s.id, userId),
            repo.updateGroup(next),
            s.call === undefined ? Effect.void : repo.saveCall(s.id, call)
          ]))
          state = next
          const user = s.recipients.get(userId)?.user
          yield* tell([userId], "CHANNEL_DELETE", gone)
          yield* tell(remaining.keys(), "CHANNEL_RECIPIENT_REMOVE", { channel_id: s.id, user })
          if (ownerId !== s.ownerId) yield* tellEach(next, remaining.keys(), "CHANNEL_UPDATE")
        })

      const saveCall = (s: DmState, call: Call | undefined, type: "CALL_CREATE" | "CALL_UPDATE" | "CALL_DELETE") =>
        Effect.gen(function*() {
          yield* repo.commit(repo.saveCall(s.id, call))
          state = { ...s, call }
          yield* tell(everyone(s), type, call === undefined ? { channel_id: s.id } : callData(s, call))
        })

      const extras = channelExtras({
        channelId,
        sql,
        repo,
        asRecipient,
        existingMessage,
        mayMessage,
        tell
      })

      return DmChannel.of({
        Typing: ({ payload }) => extras.typing(payload),
        Pin: ({ payload }) => extras.pin(payload),
        Ack: ({ payload }) => extras.ack(payload),

        Announce: ({ payload }) =>
          Effect.gen(function*() {
            const s = yield* current
            const opening = payload.userIds.filter((id) => s.recipients.get(id)?.open === false)
            if (opening.length > 0) yield* repo.commit(repo.setOpen(s.id, opening, true))
            const next = setOpen(s, opening, true)
            state = next
            yield* tellEach(next, opening, "CHANNEL_CREATE")
            const viewer = yield* asRecipient(payload.viewerId)
            return JSON.stringify(viewFor(viewer, payload.viewerId))
          }),

        View: ({ payload }) => Effect.map(asRecipient(payload.viewerId), (s) => JSON.stringify(viewFor(s, payload.viewerId))),

        Send: ({ payload }) =>
          Effect.gen(function*() {
            const { actorId, request, now } = payload
            const s = yield* asRecipient(actorId)
            if (yield* blocked(s, actorId)) return yield* cannotMessage()
            const nonce = request.nonce === undefined ? undefined : String(request.nonce)
            const twin = nonce === undefined
              ? undefined
              : recent.find((m) => m.authorId === actorId && m.nonce === nonce && now - m.sentAt <= NONCE_TTL_MS)
            if (twin !== undefined) return twin.json
            const reference = request.message_reference ?? undefined
            const replied = reference === undefined || reference.type === MessageReferenceType.FORWARD
              ? undefined
              : yield* findMessage(reference.message_id)
            const stickers = yield* repo.stickers(actorId, request.sticker_ids ?? [])
            const proposed = BigInt(payload.operationId)
            const last = BigInt(s.lastMessageId ?? "0")
            const id = (proposed > last ? proposed : last + 1n).toString()
            const author = s.recipients.get(actorId)?.user
            if (author === undefined) return yield* missingAccess()
            const parts = { replied, forwarded: payload.forwarded, uploads: payload.uploads ?? [], stickers }
            const message = yield* draftMessage(s, author, id, request, parts, now)
            const reopened = everyone(s).filter((userId) => s.recipients.get(userId)?.open === false)
            yield* repo.commit(Effect.andThen(withSql(insertMessage(null, message)), repo.sent(s.id, id, reopened)))
            const next = { ...setOpen(s, reopened, true), lastMessageId: id }
            state = next
            const json = JSON.stringify(encodeMessage(message))
            if (nonce !== undefined) recent.push({ authorId: actorId, nonce, sentAt: now, json })
            if (recent.length > RECENT) recent.shift()
            yield* tellEach(next, reopened, "CHANNEL_CREATE")
            yield* tell(everyone(next), "MESSAGE_CREATE", encodeMessage(message))
            return json
          }),

        CheckSend: ({ payload }) =>
          Effect.flatMap(asRecipient(payload.actorId), (s) => mayMessage(s, payload.actorId)),

        Edit: ({ payload }) =>
          Effect.gen(function*() {
            const s = yield* asRecipient(payload.actorId)
            const before = yield* existingMessage(payload.messageId)
            const after = yield* editedMessage(s, payload.actorId, before, payload.patch, payload.now)
            yield* repo.commit(withSql(updateMessage(after)))
            yield* tell(everyone(s), "MESSAGE_UPDATE", encodeMessage(after))
            return JSON.stringify(encodeMessage(after))
          }),

        Delete: ({ payload }) =>
          Effect.gen(function*() {
            const s = yield* asRecipient(payload.actorId)
            const message = yield* existingMessage(payload.messageId)
            // Nobody moderates a DM: each deletes only their own messages.
            if (message.author.id !== payload.actorId) return yield* missingPermissions()
            yield* repo.commit(withSql(deleteMessages(s.id, [message.id])))
            yield* tell(everyone(s), "MESSAGE_DELETE", { id: message.id, channel_id: s.id })
          }),

        DeleteAttachment: ({ payload }) =>
          Effect.gen(function*() {
            const s = yield* asRecipient(payload.actorId)
            const before = yield* existingMessage(payload.messageId)
            if (before.author.id !== payload.actorId) return yield* missingPermissions()
            const { after, gone } = yield* withoutAttachment(before, payload.attachmentId)
            if (gone) {
              yield* repo.commit(withSql(deleteMessages(s.id, [after.id])))
              return yield* tell(everyone(s), "MESSAGE_DELETE", { id: after.id, channel_id: s.id })
            }
            yield* repo.commit(withSql(updateMessage(after)))
            yield* tell(everyone(s), "MESSAGE_UPDATE", encodeMessage(after))
          }),

        Update: ({ payload }) =>
          Effect.gen(function*() {
            const { actorId, patch } = payload
            const s = yield* asGroupRecipient(actorId)
            const next = yield* patched(s, actorId, patch)
            yield* repo.commit(repo.updateGroup(next))
            state = next
            yield* tellEach(next, everyone(next), "CHANNEL_UPDATE")
            return JSON.stringify(viewFor(next, actorId))
          }),

        AddRecipient: ({ payload }) =>
          Effect.gen(function*() {
            const s = yield* asGroupRecipient(payload.actorId)
            const { user } = payload
            if (s.recipients.has(user.id)) return
            if (s.recipients.size >= MAX_GROUP_DM_RECIPIENTS + 1) {
              return yield* new BadRequest({
                code: "MAX_GROUP_DM_RECIPIENTS",
                message: `A group DM has at most ${MAX_GROUP_DM_RECIPIENTS + 1} recipients`
              })
            }
            if (!(yield* repo.commit(repo.addRecipient(s.id, user.id)))) return yield* maxGroupDms()
            const others = everyone(s)
            const next: DmState = { ...s, recipients: new Map([...s.recipients, [user.id, { user, open: true }]]) }
            state = next
            yield* tellEach(next, [user.id], "CHANNEL_CREATE")
            yield* tell(others, "CHANNEL_RECIPIENT_ADD", { channel_id: s.id, user })
          }),

        RemoveRecipient: ({ payload }) =>
          Effect.gen(function*() {
            const s = yield* asGroupRecipient(payload.actorId)
            if (!s.recipients.has(payload.userId)) return yield* unknown("USER")
            if (payload.userId !== payload.actorId && s.ownerId !== payload.actorId) return yield* missingPermissions()
            yield* leave(s, payload.userId)
          }),

        Close: ({ payload }) =>
          Effect.gen(function*() {
            const s = yield* asRecipient(payload.actorId)
            if (isGroup(s)) return yield* leave(s, payload.actorId)
            if (s.recipients.get(payload.actorId)?.open !== true) return
            yield* repo.commit(repo.setOpen(s.id, [payload.actorId], false))
            state = setOpen(s, [payload.actorId], false)
            yield* tell([payload.actorId], "CHANNEL_DELETE", { id: s.id, type: s.type })
          }),

        CallEligibility: ({ payload }) =>
          Effect.gen(function*() {
            const s = yield* asRecipient(payload.actorId)
            const refused = yield* blocked(s, payload.actorId)
            // Nobody is rung silently here: there is no do-not-disturb for calls yet.
            return { ringable: !refused && s.recipients.size > 1, silent: false }
          }),

        CallAction: ({ payload }) =>
          Effect.gen(function*() {
            const { actorId, action } = payload
            const s = yield* asRecipient(actorId)
            const named = payload.recipients
            const unknownIndex = named?.findIndex((id) => !s.recipients.has(id)) ?? -1
            if (unknownIndex >= 0) return yield* unknown("USER")
            if (action === "ring") {
              if (yield* blocked(s, actorId)) return yield* cannotMessage()
              const targets = (named ?? everyone(s)).filter((id) => id !== actorId)
              const ringing = [...new Set([...(s.call?.ringing ?? []), ...targets])]
              return yield* saveCall(s, { ringing, region: s.call?.region ?? null }, s.call === undefined ? "CALL_CREATE" : "CALL_UPDATE")
            }
            if (s.call === undefined) return yield* noActiveCall()
            if (action === "end") return yield* saveCall(s, undefined, "CALL_DELETE")
            const stopping = named ?? [actorId]
            yield* saveCall(s, { ...s.call, ringing: s.call.ringing.filter((id) => !stopping.includes(id)) }, "CALL_UPDATE")
          }),

        CallRegion: ({ payload }) =>
          Effect.gen(function*() {
            const s = yield* asRecipient(payload.actorId)
            if (s.call === undefined) return yield* noActiveCall()
            const region = payload.region === undefined ? s.call.region : payload.region
            if (region === s.call.region) return
            yield* saveCall(s, { ...s.call, region }, "CALL_UPDATE")
          })
      })
    }),
    { maxIdleTime: options.maxIdleTime }
  )

/** A group DM after `patch`: anyone in it names it and sets its icon and nicknames; only the owner hands ownership on. */
const patched = (s: DmState, actorId: string, patch: GroupDmPatch): Effect.Effect<DmState, BadRequest | Forbidden> =>
  Effect.gen(function*() {
    let ownerId = s.ownerId
    if (patch.owner_id != null && patch.owner_id !== s.ownerId) {
      if (s.ownerId !== actorId) return yield* missingPermissions()
      if (!s.recipients.has(patch.owner_id)) {
        return yield* new BadRequest({
          code: "INVALID_FORM_BODY",
          message: "Invalid form body",
          errors: [{ path: "owner_id", code: "INVALID_FORM_BODY", message: "The new owner must be in the group" }]
        })
      }
      ownerId = patch.owner_id
    }
    const nicks: Record<string, string> = { ...s.nicks }
    for (const [userId, nick] of Object.entries(patch.nicks ?? {})) {
      if (!s.recipients.has(userId)) continue
      if (nick === null) delete nicks[userId]
      else nicks[userId] = nick
    }
    return {
      ...s,
      name: patch.name === undefined ? s.name : patch.name,
      icon: patch.icon === undefined ? s.icon : patch.icon,
      ownerId,
      nicks: patch.nicks === null ? {} : nicks
    }
  })
