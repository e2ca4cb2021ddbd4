import { Effect, Schema } from "effect"
import { BadRequest, type Forbidden, missingPermissions, unknown } from "../../../src/model/Errors.ts"
import { GroupDmPatch, MAX_GROUP_DM_RECIPIENTS } from "../../../src/model/Dms.ts"
import { UserPartialResponse } from "../../../src/model/Users.ts"
import { asGroupRecipient, asRecipient, everyone, tell, tellEach, withOpen } from "../Access.ts"
import { type Decision, read, unchanged, write } from "../Definitions.ts"
import { maxGroupDms } from "../GroupDmLimit.ts"
import * as Rows from "../Rows.ts"
import { type DmState, isGroup, viewFor } from "../State.ts"

/** The channel as a recipient sees it: ChannelResponse, as `viewFor` renders it. */
const ChannelView = Schema.Unknown

/** Opens the channel for `userIds` (CHANNEL_CREATE to each who had it closed); answers the channel as `viewerId` sees it. */
export const announce = write(
  "Announce",
  { userIds: Schema.Array(Schema.String), viewerId: Schema.String },
  ChannelView,
  (s, { userIds, viewerId }) =>
    Effect.map(asRecipient(s, viewerId), (): Decision<unknown> => {
      const opening = userIds.filter((id) => s.recipients.get(id)?.open === false)
      const next = withOpen(s, opening, true)
      return {
        next,
        reply: viewFor(next, viewerId),
        ...(opening.length === 0 ? {} : { persist: Rows.setOpen(s.id, opening, true) }),
        events: tellEach(next, opening, "CHANNEL_CREATE")
      }
    })
)

/** The channel as the recipient asking sees it. */
export const view = read("View", {}, ChannelView, (s, _query, viewerId) => Effect.map(asRecipient(s, viewerId), (s) => viewFor(s, viewerId)))

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

/** PATCH of a group DM. */
export const updateGroup = write("UpdateGroup", { patch: GroupDmPatch }, ChannelView, (s, { patch }, { actorId }) =>
  Effect.gen(function*() {
    yield* asGroupRecipient(s, actorId)
    const next = yield* patched(s, actorId, patch)
    return { next, reply: viewFor(next, actorId), persist: Rows.updateGroup(next), events: tellEach(next, everyone(next), "CHANNEL_UPDATE") }
  }))

/**
 * PUT /channels/{id}/recipients/{user}: the HTTP side checked the user exists and is the actor's
 * friend, and whether they have room for one more group DM (`hasRoom`).
 */
export const addRecipient = write(
  "AddRecipient",
  { user: UserPartialResponse, hasRoom: Schema.Boolean },
  Schema.Null,
  (s, { user, hasRoom }, { actorId }) =>
    Effect.gen(function*() {
      yield* asGroupRecipient(s, actorId)
      if (s.recipients.has(user.id)) return unchanged(s, null)
      if (s.recipients.size >= MAX_GROUP_DM_RECIPIENTS + 1) {
        return yield* new BadRequest({
          code: "MAX_GROUP_DM_RECIPIENTS",
          message: `A group DM has at most ${MAX_GROUP_DM_RECIPIENTS + 1} recipients`
        })
      }
      if (!hasRoom) return yield* maxGroupDms()
      const next: DmState = { ...s, recipients: new Map([...s.recipients, [user.id, { user, open: true }]]) }
      return {
        next,
        reply: null,
        persist: Rows.addRecipient(s.id, user.id),
        events: [...tellEach(next, [user.id], "CHANNEL_CREATE"), tell(everyone(s), "CHANNEL_RECIPIENT_ADD", { channel_id: s.id, user })]
      }
    })
)

/** `userId` leaves a group DM: the owner's place passes on; the last one out deletes the channel. */
const leave = (s: DmState, userId: string): Decision<null> => {
  const remaining = new Map(s.recipients)
  remaining.delete(userId)
  const gone = tell([userId], "CHANNEL_DELETE", { id: s.id, type: s.type })
  if (remaining.size === 0) return { next: s, reply: null, persist: Rows.deleteChannel(s.id), events: [gone], dropsChannel: true }
  const ownerId = s.ownerId === userId ? [...remaining.keys()][0] ?? null : s.ownerId
  const call = s.call === undefined ? undefined : { ...s.call, ringing: s.call.ringing.filter((id) => id !== userId) }
  const next: DmState = { ...s, recipients: remaining, ownerId, call }
  const user = s.recipients.get(userId)?.user
  return {
    next,
    reply: null,
    persist: Effect.all([
      Rows.removeRecipient(s.id, userId),
      Rows.updateGroup(next),
      s.call === undefined ? Effect.void : Rows.saveCall(s.id, call)
    ], { discard: true }),
    events: [
      gone,
      tell(remaining.keys(), "CHANNEL_RECIPIENT_REMOVE", { channel_id: s.id, user }),
      ...(ownerId === s.ownerId ? [] : tellEach(next, remaining.keys(), "CHANNEL_UPDATE"))
    ]
  }
}

/** DELETE /channels/{id}/recipients/{user}, and a recipient leaving a group DM. */
export const removeRecipient = write("RemoveRecipient", { userId: Schema.String }, Schema.Null, (s, { userId }, { actorId }) =>
  Effect.gen(function*() {
    yield* asGroupRecipient(s, actorId)
    if (!s.recipients.has(userId)) return yield* unknown("USER")
    if (userId !== actorId && s.ownerId !== actorId) return yield* missingPermissions()
    return leave(s, userId)
  }))

/** DELETE /channels/{id}: closes a DM for the actor, or leaves a group DM. */
export const close = write("Close", {}, Schema.Null, (s, _command, { actorId }) =>
  Effect.map(asRecipient(s, actorId), (): Decision<null> => {
    if (isGroup(s)) return leave(s, actorId)
    if (s.recipients.get(actorId)?.open !== true) return unchanged(s, null)
    return {
      next: withOpen(s, [actorId], false),
      reply: null,
      persist: Rows.setOpen(s.id, [actorId], false),
      events: [tell([actorId], "CHANNEL_DELETE", { id: s.id, type: s.type })]
    }
  }))

export const channelWrites = [announce, updateGroup, addRecipient, removeRecipient, close] as const
export const channelReads = [view] as const
