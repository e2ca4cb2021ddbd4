import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { UserActors } from "../guilds/UserActors.ts"
import { BadRequest, type Forbidden, missingPermissions, type NotFound, type Unavailable, unknown } from "../model/Errors.ts"
import type { RelationshipResponse } from "../model/Relationships.ts"
import {
  acceptFriend,
  blockUser,
  peerChanged,
  relationshipWith,
  removeRelationship,
  requestFriend,
  setRelationshipNickname
} from "../../shards/user/operations/Relationships.ts"
import { pendingIntents } from "../../shards/user/RelationshipIntents.ts"
import { RelationshipsRepo } from "./Repo.ts"

const refused = (code: string, message: string) => new BadRequest({ code, message })

type Refusal = BadRequest | Forbidden | NotFound | Unavailable

/**
 * Friends, friend requests and blocks, each user's side kept by their own
 * actor (shards/user/operations/Relationships.ts, where the rules are). A
 * change is written through the acting user's actor, which records the other
 * side's part with it; then that part is delivered to the other user's actor,
 * under an operation id derived from the first. If the delivery fails (the
 * other actor's shard is down, this process dies) the acting side's change
 * stands and the shard processes' sweep delivers the rest, so both sides end
 * up changed, never one.
 */
export class Relationships extends Context.Service<Relationships, {
  /** A friend request; `force` (staff only) makes the friendship at once. */
  readonly request: (me: string, target: string, force: boolean) => Effect.Effect<RelationshipResponse, Refusal>
  readonly requestByTag: (
    me: string,
    username: string,
    discriminator: string | number | undefined
  ) => Effect.Effect<RelationshipResponse, Refusal>
  /** Accepts `target`'s request; accepting a friend again changes nothing. */
  readonly accept: (me: string, target: string) => Effect.Effect<RelationshipResponse, Refusal>
  readonly block: (me: string, target: string) => Effect.Effect<RelationshipResponse, Refusal>
  /** Unfriends, withdraws or ignores a request, or unblocks, whichever `target` is to `me`. */
  readonly remove: (me: string, target: string) => Effect.Effect<void, Refusal>
  readonly setNickname: (me: string, target: string, nickname: string | null) => Effect.Effect<RelationshipResponse, Refusal>
}>()("guildhall/Relationships") {
  static readonly layer = Layer.effect(
    Relationships,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* RelationshipsRepo
      const users = yield* UserActors

      /**
       * `me`'s changes toward `target` that `target`'s side has not applied yet,
       * oldest first: an earlier one left pending is never overtaken.
       */
      const deliver = (me: string, target: string) =>
        pendingIntents(sql, me, target).pipe(
          Effect.flatMap((pending) =>
            Effect.forEach(pending, ({ operationId, change }) => users.write(target, peerChanged, change, { actorId: me, operationId }), {
              discard: true
            })
          ),
          Effect.catch((error) => Effect.logWarning("relationships: the other side of a change is left to the sweep", error))
        )

      /** `me`'s side of a change, then the other side's part of it. */
      const bothSides = <A>(me: string, target: string, own: Effect.Effect<A, Refusal>) => Effect.tap(own, () => deliver(me, target))

      /** The users' facts, or 404 when one of them does not exist. */
      const partiesOf = (me: string, target: string) =>
        Effect.flatMap(repo.parties([me, target]), (parties) => {
          const sender = parties.get(me)
          const recipient = parties.get(target)
          return sender === undefined || recipient === undefined ? Effect.fail(unknown("USER")) : Effect.succeed({ sender, recipient })
        })

      const theirSide = (me: string, target: string) => users.read(target, relationshipWith, { userId: me })

      const request = Effect.fn("Relationships.request")(function*(me: string, target: string, force: boolean) {
        if (me === target) return yield* refused("CANNOT_SEND_FRIEND_REQUEST_TO_SELF", "You cannot send a friend request to yourself")
        const { sender, recipient } = yield* partiesOf(me, target)
        if (sender.bot) return yield* refused("BOTS_CANNOT_SEND_FRIEND_REQUESTS", "Bots cannot send friend requests")
        if (force && !sender.staff) return yield* missingPermissions()
        const theirs = yield* theirSide(me, target)
        return yield* bothSides(me, target, users.write(me, requestFriend, {
          targetId: target,
          user: recipient.user,
          theirs,
          force,
          reachable: recipient.reachable && !recipient.bot
        }, { actorId: me }))
      })

      const requestByTag = Effect.fn("Relationships.requestByTag")(function*(
        me: string,
        username: string,
        discriminator: string | number | undefined
      ) {
        if (discriminator === undefined) {
          return yield* refused("DISCRIMINATOR_REQUIRED", "A username needs its discriminator, as in name#0001")
        }
        const target = yield* repo.findByTag(username, String(discriminator).padStart(4, "0"))
        if (target === undefined) return yield* refused("NO_USERS_WITH_SERVICETAG_EXIST", "No user has this username and discriminator")
        return yield* request(me, target, false)
      })

      const accept = Effect.fn("Relationships.accept")(function*(me: string, target: string) {
        const { recipient } = yield* partiesOf(me, target)
        const theirs = yield* theirSide(me, target)
        return yield* bothSides(me, target, users.write(me, acceptFriend, { targetId: target, user: recipient.user, theirs }, { actorId: me }))
      })

      const block = Effect.fn("Relationships.block")(function*(me: string, target: string) {
        if (me === target) return yield* refused("BAD_REQUEST", "You cannot block yourself")
        const { recipient } = yield* partiesOf(me, target)
        return yield* bothSides(me, target, users.write(me, blockUser, { targetId: target, user: recipient.user }, { actorId: me }))
      })

      const remove = Effect.fn("Relationships.remove")((me: string, target: string) =>
        Effect.asVoid(bothSides(me, target, users.write(me, removeRelationship, { targetId: target }, { actorId: me }))))

      const setNickname = Effect.fn("Relationships.setNickname")((me: string, target: string, nickname: string | null) =>
        users.write(me, setRelationshipNickname, { targetId: target, nickname }, { actorId: me }))

      return Relationships.of({ request, requestByTag, accept, block, remove, setNickname })
    })
  )
}
