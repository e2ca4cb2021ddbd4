import { Effect, Schema } from "effect"
import { BadRequest, unknown } from "../../../src/model/Errors.ts"
import { MAX_FRIENDS, RelationshipResponse, RelationshipType, RelationshipTypeCode } from "../../../src/model/Relationships.ts"
import { toUserPartial, UserPartialResponse } from "../../../src/model/Users.ts"
import { type Decision, read, toSelf, unchanged, type UserContext, type UserEvent, write } from "../Definitions.ts"
import { PeerChange, type PeerChangeKind, peerOperationId, recordIntent, settleIntent } from "../RelationshipIntents.ts"
import { writeSide } from "../RelationshipRows.ts"
import type { Relationship, UserState } from "../State.ts"

/**
 * Friends, friend requests and blocks. A change concerning two users is two
 * writes under one operation id: the acting user's (the first five below,
 * decided from their state and what the caller read of the other side), which
 * records the other side's part with its own row (RelationshipIntents.ts), and
 * the other user's (`peerChanged`), which applies that part and forgets it.
 * Each side's sessions hear of their own side's change from their own actor:
 * RELATIONSHIP_ADD with the new row, or RELATIONSHIP_REMOVE with the row as it
 * was, when its type changed. So a silent change (an ignored request, a block)
 * is not told to the other side.
 *
 * - Asking someone who already asked you accepts their request.
 * - Ignoring (removing) an incoming request, or blocking its sender, leaves the
 *   sender's outgoing request as it was.
 * - Blocking ends a friendship and withdraws your own request; a user you block
 *   or who blocked you cannot be asked.
 */

const { friend, blocked, incoming, outgoing } = RelationshipType

const refused = (code: string, message: string) => new BadRequest({ code, message })

const encodeView = Schema.encodeSync(RelationshipResponse)

/** `targetId`'s row as GET /users/@me/relationships shows it. */
const view = (targetId: string, side: Relationship): RelationshipResponse => ({
  id: targetId,
  type: side.type,
  user: side.user,
  since: side.since,
  nickname: side.nickname,
  // Voice activity sharing has no setting yet: nobody shares.
  share_voice_activity: false,
  friend_shares_voice_activity: false
})

const byId = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0)

/** The user's relationships, oldest first (GET /users/@me/relationships, READY). */
export const relationshipsView = (state: UserState): ReadonlyArray<RelationshipResponse> =>
  [...state.relationships]
    .sort(([a, x], [b, y]) => (x.since < y.since ? -1 : x.since > y.since ? 1 : byId(a, b)))
    .map(([id, side]) => view(id, side))

/** Friends and outgoing requests: what the friend limit counts. */
const friendsAndRequests = (state: UserState) => {
  let n = 0
  for (const side of state.relationships.values()) if (side.type === friend || side.type === outgoing) n++
  return n
}

export const listRelationships = read("ListRelationships", {}, Schema.Array(RelationshipResponse), (state) =>
  Effect.sync(() => relationshipsView(state)))

/** Whom the user's presence goes to. */
export const listFriendIds = read("ListFriendIds", {}, Schema.Array(Schema.String), (state) =>
  Effect.sync(() => [...state.relationships].filter(([, side]) => side.type === friend).map(([id]) => id)))

/** What one user is to another, and how full the other's friend list is: what a change by the one decides on. */
export const TheirSide = Schema.Struct({ type: Schema.NullOr(RelationshipTypeCode), friendsAndRequests: Schema.Int })
export type TheirSide = typeof TheirSide.Type

/** What `userId` is to this user, for a change `userId` is about to make (its `theirs`). */
export const relationshipWith = read("RelationshipWith", { userId: Schema.String }, TheirSide, (state, { userId }) =>
  Effect.sync(() => ({ type: state.relationships.get(userId)?.type ?? null, friendsAndRequests: friendsAndRequests(state) })))

/** The side as `type`: unchanged (but for the other user's partial user) when it is that already, else begun now. */
const becomes = (before: Relationship | undefined, type: RelationshipType, user: UserPartialResponse, context: UserContext): Relationship =>
  before?.type === type
    ? { ...before, user }
    : { type, nickname: null, since: new Date(context.now).toISOString(), user }

/** The user's side toward `targetId` becomes `side` (undefined: none), with its row and its event. */
const changeSide = (state: UserState, context: UserContext, targetId: string, side: Relationship | undefined) => {
  const before = state.relationships.get(targetId)
  const relationships = new Map(state.relationships)
  if (side === undefined) relationships.delete(targetId)
  else relationships.set(targetId, side)
  const events: Array<UserEvent> = []
  if (before?.type !== side?.type) {
    if (side !== undefined) events.push(toSelf(context, "RELATIONSHIP_ADD", encodeView(view(targetId, side))))
    else if (before !== undefined) events.push(toSelf(context, "RELATIONSHIP_REMOVE", encodeView(view(targetId, before))))
  }
  return { next: { ...state, relationships }, persist: writeSide(context.userId, targetId, side), events }
}

/** The acting side's change, and the other side's part of it (`peer`) recorded with it. */
const actingSide = <Reply>(
  state: UserState,
  context: UserContext,
  targetId: string,
  side: Relationship | undefined,
  peer: PeerChangeKind | undefined,
  reply: Reply
): Decision<Reply> => {
  const { next, persist, events } = changeSide(state, context, targetId, side)
  if (peer === undefined) return { next, reply, persist, events }
  const change = { otherId: context.userId, change: peer, user: toUserPartial(state.account) }
  const recorded = recordIntent(peerOperationId(context.operationId), context.userId, targetId, change)
  return { next, reply, persist: Effect.andThen(persist, recorded), events }
}

const roomFor = (count: number, current: RelationshipType | null | undefined) =>
  current === friend || current === outgoing || count < MAX_FRIENDS
    ? Effect.void
    : Effect.fail(refused("MAX_FRIENDS", `Maximum number of friends reached (${MAX_FRIENDS})`))

/** Both become friends, if neither list is full (friends and outgoing requests count already). */
const befriend = (state: UserState, context: UserContext, targetId: string, user: UserPartialResponse, theirs: TheirSide) =>
  Effect.gen(function*() {
    const mine = state.relationships.get(targetId)
    yield* roomFor(friendsAndRequests(state), mine?.type)
    yield* roomFor(theirs.friendsAndRequests, theirs.type)
    const side = becomes(mine, friend, user, context)
    return actingSide(state, context, targetId, side, "befriend", view(targetId, side))
  })

/** Who is asked, and what the caller read of them. */
const Target = { targetId: Schema.String, user: UserPartialResponse }

/**
 * A friend request; `force` (staff, checked by the caller) makes the
 * friendship at once. `reachable` is false for a bot, or an account disabled
 * or on its way to deletion: it takes no new request.
 */
export const requestFriend = write(
  "RequestFriend",
  { ...Target, theirs: TheirSide, force: Schema.Boolean, reachable: Schema.Boolean },
  RelationshipResponse,
  (state, { targetId, user, theirs, force, reachable }, context) =>
    Effect.gen(function*() {
      const mine = state.relationships.get(targetId)
      if (mine?.type === blocked) {
        return yield* refused("CANNOT_SEND_FRIEND_REQUEST_TO_BLOCKED_USER", "Unblock this user before sending a friend request")
      }
      if (theirs.type === blocked) return yield* refused("FRIEND_REQUEST_BLOCKED", "This user is not accepting friend requests")
      if (mine?.type === friend) return yield* refused("ALREADY_FRIENDS", "You are already friends with this user")
      if (mine?.type === incoming || theirs.type === outgoing || force) return yield* befriend(state, context, targetId, user, theirs)
      if (mine?.type === outgoing) return unchanged(state, view(targetId, mine))
      if (!reachable) return yield* refused("FRIEND_REQUEST_BLOCKED", "This user is not accepting friend requests")
      yield* roomFor(friendsAndRequests(state), mine?.type)
      const side = becomes(mine, outgoing, user, context)
      return actingSide(state, context, targetId, side, "request", view(targetId, side))
    })
)

/** Accepts `targetId`'s request; accepting a friend again changes nothing. */
export const acceptFriend = write(
  "AcceptFriend",
  { ...Target, theirs: TheirSide },
  RelationshipResponse,
  (state, { targetId, user, theirs }, context) => {
    const mine = state.relationships.get(targetId)
    if (mine?.type === friend) return Effect.succeed(unchanged(state, view(targetId, mine)))
    if (mine?.type !== incoming) return Effect.fail(unknown("USER"))
    return befriend(state, context, targetId, user, theirs)
  }
)

/** Blocks `targetId`: ends a friendship, withdraws one's own request. Their request and their own block stay. */
export const blockUser = write("BlockUser", Target, RelationshipResponse, (state, { targetId, user }, context) => {
  const mine = state.relationships.get(targetId)
  if (mine?.type === blocked) return Effect.succeed(unchanged(state, view(targetId, mine)))
  const side = becomes(mine, blocked, user, context)
  const peer = mine?.type === friend || mine?.type === outgoing ? "block" : undefined
  return Effect.succeed(actingSide(state, context, targetId, side, peer, view(targetId, side)))
})

/** Unfriends, withdraws or ignores a request, or unblocks, whichever `targetId` is to the user. */
export const removeRelationship = write("RemoveRelationship", { targetId: Schema.String }, Schema.Null, (state, { targetId }, context) => {
  const mine = state.relationships.get(targetId)
  if (mine === undefined) return Effect.fail(unknown("USER"))
  // Ignoring a request and unblocking are the user's own business.
  const peer = mine.type === friend ? "unfriend" : mine.type === outgoing ? "withdraw" : undefined
  return Effect.succeed(actingSide(state, context, targetId, undefined, peer, null))
})

/** A friend's nickname, seen only by the user; blank clears it. Not announced. */
export const setRelationshipNickname = write(
  "SetRelationshipNickname",
  { targetId: Schema.String, nickname: Schema.NullOr(Schema.String) },
  RelationshipResponse,
  (state, { targetId, nickname }, context) => {
    const mine = state.relationships.get(targetId)
    if (mine?.type !== friend) return Effect.fail(refused("NOT_FRIENDS_WITH_USER", "Only friends have nicknames"))
    const trimmed = nickname?.trim() ?? ""
    const side = { ...mine, nickname: trimmed === "" ? null : trimmed }
    return Effect.succeed({ ...changeSide(state, context, targetId, side), reply: view(targetId, side) })
  }
)

/**
 * What this side becomes when the other user made `change`. Each user's
 * changes toward the other arrive in the order they were made, but may cross
 * this user's own: a request meeting this user's own request makes friends
 * (this user's request, arriving on the other side, does the same there), and
 * nothing the other does undoes a block.
 */
const afterPeer = (mine: RelationshipType | undefined, change: PeerChangeKind): RelationshipType | undefined => {
  switch (change) {
    case "request":
      return mine === blocked || mine === friend ? mine : mine === outgoing ? friend : incoming
    case "befriend":
      return mine === blocked ? mine : friend
    case "unfriend":
      return mine === friend ? undefined : mine
    case "withdraw":
      return mine === incoming ? undefined : mine
    case "block":
      return mine === friend || mine === incoming ? undefined : mine
  }
}

/** The other side of a change `otherId` made (their write recorded it): applied, and its record forgotten. */
export const peerChanged = write("PeerRelationshipChanged", PeerChange.fields, Schema.Null, (state, { otherId, change, user }, context) => {
  const mine = state.relationships.get(otherId)
  const type = afterPeer(mine?.type, change)
  if (type === mine?.type) return Effect.succeed({ ...unchanged(state, null), persist: settleIntent(context.operationId) })
  const { next, persist, events } = changeSide(state, context, otherId, type === undefined ? undefined : becomes(mine, type, user, context))
  return Effect.succeed({ next, reply: null, persist: Effect.andThen(persist, settleIntent(context.operationId)), events })
})

export const relationshipsReads = [listRelationships, listFriendIds, relationshipWith] as const
export const relationshipsWrites = [requestFriend, acceptFriend, blockUser, removeRelationship, setRelationshipNickname, peerChanged] as const
